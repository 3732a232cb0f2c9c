#pragma once
// A lock every kopt process on this host shares, by name: an exclusive flock(2) on a file in
// one folder ($KOPT_LOCK_DIR, else /tmp/kopt-locks). kopt holds "gpu-<uuid>" while it runs a
// kernel on that GPU (a check, a bench's timing and audit, a profile), so that two kopt
// processes never time each other's kernels (docs/measurement.md, "One GPU, one kopt").
//
// The holder writes who it is (process id, command line, since when) into the file, and a
// process that must wait says once whom it waits for. Within one process the lock is shared:
// its own workers (prestarted, audits side by side) take turns by themselves, and a nested
// holder costs nothing. The kernel dies with the lock released: flock ends with the process.

#include <functional>
#include <string>

namespace kopt {

class HostLock {
 public:
  // Blocks until this process holds `name`; calls `on_wait` once with a line naming the holder
  // when another process holds it. A folder or file that cannot be made is an environment
  // Error naming it.
  HostLock(const std::string& name, const std::function<void(const std::string& line)>& on_wait);
  ~HostLock();
  HostLock(const HostLock&) = delete;
  HostLock& operator=(const HostLock&) = delete;

 private:
  std::string name_;
};

// The folder the locks live in.
std::string host_lock_dir();

}  // namespace kopt
