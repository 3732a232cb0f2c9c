#pragma once
// What kopt does when it is told to stop (SIGINT, SIGTERM, SIGHUP): end every process group
// it started (workers, nvcc, the Python reference runner, ncu), remove its temporary files
// and folders, say so in one line and exit 128 + the signal (130, 143, 129).
//
// The signals are blocked in every thread and taken by one thread that waits for them, so
// the cleanup runs as ordinary code, not in a signal handler. SystemProcessRunner registers
// each child's group here while it runs; TempDir and write_file_atomic register their
// temporaries. A child that outlives a kopt killed outright (SIGKILL, where no cleanup can
// run) is ended by the kernel: SystemProcessRunner sets PR_SET_PDEATHSIG in it.

#include <sys/types.h>

#include <filesystem>
#include <string>

namespace kopt {

// Call once, first thing in main, before any thread starts (threads inherit the blocked
// signals). Without it (the unit tests), signals keep their default action.
void install_interrupt_handler();

// The signals install_interrupt_handler blocks, unblocked again: for a child after fork,
// which would otherwise inherit the block across exec. Async-signal-safe.
void unblock_interrupt_signals_in_child();

// Registered while alive; ended (SIGKILL to the group) on an interrupt.
void track_child_group(pid_t group);
void untrack_child_group(pid_t group);
bool is_tracked_child_group(pid_t group);
// Ends `group` (SIGKILL) while it is registered, that is while SystemProcessRunner's run of it
// has not returned; true when it was. Never signals a group kopt did not start or has finished
// with (a fake runner's pid, a number the system may have given to another process since).
bool end_tracked_child_group(pid_t group);

// Registered while alive; removed (recursively) on an interrupt.
void track_temporary(const std::filesystem::path& path);
// mkstemp / mkdtemp on `pattern` (…XXXXXX, replaced by the name), registered in the same step:
// an interrupt never finds the file created but not yet registered. -1 / false on failure,
// with errno set.
int make_tracked_temporary_file(std::string& pattern);
bool make_tracked_temporary_folder(std::string& pattern);
void untrack_temporary(const std::filesystem::path& path);

}  // namespace kopt
