#pragma once
// What in this process can act after solve has returned: its host threads, its child
// processes and its armed timers. kopt's timing assumes a call is over when solve returns and
// the device is idle; a thread or timer that solve leaves behind can launch work later, on
// another variant's sample (a competitor's, or the reference's), where no clock of that sample
// can tell whose work slowed it (docs/integrity.md, "Agents left behind"). The source audit
// names threads it can read in the source; this counts the ones that exist, however they were
// made.

#include <set>
#include <string>
#include <vector>

namespace kopt::run {

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

  // For tests: a census as /proc would give it.
  static HostAgents of(std::set<long> threads, std::set<long> children, std::set<long> posix_timers,
                       std::set<std::string> interval_timers);

 private:
  std::set<long> threads_;
  std::set<long> children_;
  std::set<long> posix_timers_;
  std::set<std::string> interval_timers_;  // "ITIMER_REAL", ... of those armed
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
