#pragma once
// What in this process can act after solve has returned: its host threads, its child
// processes and its armed timers, and what can answer its system calls (seccomp filters, a
// tracer, a SIGSYS handler). kopt's timing assumes a call is over when solve returns and
// the device is idle; a thread or timer that solve leaves behind can launch work later, on
// another variant's sample (a competitor's, or the reference's), where no clock of that sample
// can tell whose work slowed it (docs/integrity.md, "Agents left behind"). The source audit
// names threads it can read in the source; this counts the ones that exist, however they were
// made.

#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace kopt::run {

// What can answer this process's system calls in its place, from /proc/self/status: seccomp
// filters (one that traps a call to a SIGSYS handler lets the process's own code answer it),
// a tracer, and a SIGSYS handler (syscall user dispatch, PR_SET_SYSCALL_USER_DISPATCH, traps a
// thread's calls to one without any filter, and /proc shows no more of it than the handler).
// The timed calls' seeds come from a system call (core/secret.hpp), so a kernel that installs
// any of them could choose its own inputs.
struct SystemCallInterceptors {
  long seccomp_mode = 0;        // "Seccomp:": 0 none, 1 strict, 2 filter
  long seccomp_filters = 0;     // "Seccomp_filters:" (Linux 5.9 and later; 0 where absent)
  long tracer = 0;              // "TracerPid:": 0 when none
  bool sigsys_caught = false;   // "SigCgt:" (a hex mask of the signals with a handler) has SIGSYS
};
SystemCallInterceptors parse_system_call_interceptors(const std::string& proc_status);

// Whether `signal` is set in a /proc/PID/status signal mask ("SigCgt:"'s "0000000040004a02":
// hex, signal n at bit n - 1); false for a mask that does not parse.
bool mask_has_signal(std::string_view hex_mask, int signal);

class HostAgents {
 public:
  // This process's threads (/proc/self/task), its children (each thread's
  // /proc/self/task/TID/children), its POSIX timers (/proc/self/timers) and its interval timers
  // (getitimer). Threads exist whenever the process runs, so a census that found none could
  // not read /proc: `readable()` is false then and nothing is compared.
  static HostAgents now();

  bool readable() const { return !threads_.empty(); }

  // What is here and was not in `before`, one description each ("thread 1234 'saboteur'",
  // "process 1240 'sh'", "POSIX timer 0", "interval timer ITIMER_REAL"); empty when either
  // census was not readable.
  std::vector<std::string> newcomers_since(const HostAgents& before) const;
  // What can answer this process's system calls and was not there in `before` ("1 more
  // seccomp filter(s)", "tracer process 1250 'gdb'", "a SIGSYS handler ..."); a filter already
  // there (a container's) is not named. `sigsys_handlers_counted` false leaves SIGSYS handlers
  // out: where Python hosts the worker, LLVM (Triton's compiler) installs crash handlers for
  // SIGSYS among other signals whenever it is first asked to.
  std::vector<std::string> interceptors_since(const HostAgents& before, bool sigsys_handlers_counted = true) const;

  // For tests: a census as /proc would give it.
  static HostAgents of(std::set<long> threads, std::set<long> children, std::set<long> posix_timers,
                       std::set<std::string> interval_timers, SystemCallInterceptors interceptors = {});

 private:
  std::set<long> threads_;
  std::set<long> children_;
  std::set<long> posix_timers_;
  std::set<std::string> interval_timers_;  // "ITIMER_REAL", ... of those armed
  SystemCallInterceptors interceptors_;
};

// Makes this process the reaper of its orphaned descendants (PR_SET_CHILD_SUBREAPER): a process
// that a call starts and leaves by a double fork or setsid then becomes this process's child,
// and stays in the census while it runs. Once this process has exited, kopt's own (a reaper
// too) ends whatever is left (core/stray_processes.hpp).
void keep_orphans_in_census();

// Whether the process whose /proc/PID/stat reads `proc_stat` has ended: a zombie, or the file
// was empty (the process is gone).
bool has_ended(const std::string& proc_stat);

// The ids in the text of /proc/self/timers ("ID: 3" lines).
std::set<long> parse_posix_timer_ids(const std::string& proc_timers);

// The process ids in the text of a /proc/.../children file (separated by spaces).
std::set<long> parse_child_ids(const std::string& proc_children);

}  // namespace kopt::run
