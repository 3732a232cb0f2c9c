#pragma once
// What the kernel of Linux says about another process's memory (/proc/PID/smaps): the one
// place outside the process runner where kopt looks at a process it started.

#include <optional>
#include <string>

namespace kopt {

// The text of /proc/PID/smaps; nullopt when the process is gone or may not be read.
std::optional<std::string> read_process_smaps(int pid);

}  // namespace kopt
