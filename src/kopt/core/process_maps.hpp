#pragma once
// What the kernel of Linux says about another process (/proc/PID): its memory (smaps) and its
// parent; the one place outside the process runner where kopt looks at other processes.

#include <optional>
#include <string>

namespace kopt {

// The text of /proc/PID/smaps; nullopt when the process is gone or may not be read.
std::optional<std::string> read_process_smaps(int pid);

// Whether `pid` runs (its /proc/PID/stat says so: not a zombie, not dead). /proc/PID/stat is
// readable where smaps is refused, so this tells a refused look from a process that is gone.
bool process_running(int pid);

// The parent of `pid` from /proc/PID/stat; nullopt when the process is gone or its stat
// may not be read.
std::optional<int> parent_of(int pid);

// Whether `pid` is `ancestor` or one of its descendants (by the parent links in
// /proc/PID/stat); false when a link cannot be read.
bool is_same_or_descendant(int pid, int ancestor);

}  // namespace kopt
