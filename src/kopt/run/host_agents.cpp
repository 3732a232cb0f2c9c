#include "kopt/run/host_agents.hpp"

#include <sys/prctl.h>
#include <sys/time.h>

#include <fmt/format.h>

#include <charconv>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string_view>
#include <system_error>

namespace kopt::run {
namespace {

namespace fs = std::filesystem;

// /proc files report a size of 0: they are read as streams.
std::string read_proc_text(const fs::path& path) {
  std::ifstream in(path);
  return in ? std::string(std::istreambuf_iterator<char>(in), {}) : std::string();
}

std::set<long> thread_ids() {
  std::set<long> ids;
  std::error_code error;
  for (const fs::directory_entry& entry : fs::directory_iterator("/proc/self/task", error)) {
    const std::string name = entry.path().filename().string();
    long id = 0;
    if (std::from_chars(name.data(), name.data() + name.size(), id).ec == std::errc{}) ids.insert(id);
  }
  return ids;
}

std::set<std::string> armed_interval_timers() {
  struct Named {
    int which;
    const char* name;
  };
  std::set<std::string> armed;
  for (const Named timer : {Named{ITIMER_REAL, "ITIMER_REAL"}, Named{ITIMER_VIRTUAL, "ITIMER_VIRTUAL"},
                            Named{ITIMER_PROF, "ITIMER_PROF"}}) {
    itimerval value{};
    if (getitimer(timer.which, &value) == 0 && (value.it_value.tv_sec != 0 || value.it_value.tv_usec != 0)) {
      armed.insert(timer.name);
    }
  }
  return armed;
}

// Each thread's children: a process belongs to the thread that forked it. The file needs
// CONFIG_PROC_CHILDREN; without it no child is seen. Not core/stray_processes.cpp's scan of
// every /proc/PID/stat, which finds children wherever Linux is built without it but costs a
// read per process of the host, and this census runs after every sample.
// A zombie (ended, not yet waited for) can act no more: a kernel that forks a helper and never
// waits for it has left nothing running.
std::set<long> child_ids(const std::set<long>& threads) {
  std::set<long> children;
  for (long thread : threads) {
    children.merge(parse_child_ids(read_proc_text(fmt::format("/proc/self/task/{}/children", thread))));
  }
  std::erase_if(children, [](long pid) { return has_ended(read_proc_text(fmt::format("/proc/{}/stat", pid))); });
  return children;
}

// What a thread or process calls itself (its comm), for the message; empty once it is gone.
std::string name_in(const std::string& comm_path) {
  std::string name = read_proc_text(comm_path);
  while (!name.empty() && (name.back() == '\n' || name.back() == '\r')) name.pop_back();
  return name;
}

std::string described(std::string_view kind, long id, const std::string& name) {
  return name.empty() ? fmt::format("{} {}", kind, id) : fmt::format("{} {} '{}'", kind, id, name);
}

}  // namespace

bool has_ended(const std::string& proc_stat) {
  // "PID (COMM) S ...": COMM may hold spaces and parentheses, so the state follows the last ')'.
  const std::size_t close = proc_stat.rfind(')');
  if (close == std::string::npos || close + 2 >= proc_stat.size()) return true;  // gone already
  const char state = proc_stat[close + 2];
  return state == 'Z' || state == 'X';
}

void keep_orphans_in_census() { ::prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); }

std::set<long> parse_child_ids(const std::string& proc_children) {
  std::set<long> ids;
  std::istringstream words(proc_children);
  for (long id = 0; words >> id;) ids.insert(id);
  return ids;
}

std::set<long> parse_posix_timer_ids(const std::string& proc_timers) {
  std::set<long> ids;
  std::istringstream lines(proc_timers);
  for (std::string line; std::getline(lines, line);) {
    if (!line.starts_with("ID:")) continue;
    const std::size_t digits = line.find_first_not_of(' ', 3);
    long id = 0;
    if (digits != std::string::npos &&
        std::from_chars(line.data() + digits, line.data() + line.size(), id).ec == std::errc{}) {
      ids.insert(id);
    }
  }
  return ids;
}

bool mask_has_signal(std::string_view hex_mask, int signal) {
  const std::size_t begin = hex_mask.find_first_not_of(" \t");
  if (begin == std::string_view::npos || signal < 1) return false;
  const std::string_view digits = hex_mask.substr(begin, hex_mask.find_first_of(" \t\r", begin) - begin);
  const std::size_t bit = static_cast<std::size_t>(signal - 1);
  if (bit / 4 >= digits.size()) return false;
  const char digit = digits[digits.size() - 1 - bit / 4];
  int value = 0;
  if (std::from_chars(&digit, &digit + 1, value, 16).ec != std::errc{}) return false;
  return (value >> (bit % 4)) & 1;
}

SystemCallInterceptors parse_system_call_interceptors(const std::string& proc_status) {
  SystemCallInterceptors found;
  std::istringstream lines(proc_status);
  for (std::string line; std::getline(lines, line);) {
    const std::size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    const std::string_view key(line.data(), colon);
    if (key == "SigCgt") {
      found.sigsys_caught = mask_has_signal(std::string_view(line).substr(colon + 1), SIGSYS);
      continue;
    }
    long* field = key == "Seccomp"           ? &found.seccomp_mode
                  : key == "Seccomp_filters" ? &found.seccomp_filters
                  : key == "TracerPid"       ? &found.tracer
                                             : nullptr;
    if (field == nullptr) continue;
    const std::size_t digits = line.find_first_not_of(" \t", colon + 1);
    if (digits != std::string::npos) std::from_chars(line.data() + digits, line.data() + line.size(), *field);
  }
  return found;
}

HostAgents HostAgents::now() {
  std::set<long> threads = thread_ids();
  std::set<long> children = child_ids(threads);
  return of(std::move(threads), std::move(children), parse_posix_timer_ids(read_proc_text("/proc/self/timers")),
            armed_interval_timers(), parse_system_call_interceptors(read_proc_text("/proc/self/status")));
}

HostAgents HostAgents::of(std::set<long> threads, std::set<long> children, std::set<long> posix_timers,
                          std::set<std::string> interval_timers, SystemCallInterceptors interceptors) {
  HostAgents census;
  census.threads_ = std::move(threads);
  census.children_ = std::move(children);
  census.posix_timers_ = std::move(posix_timers);
  census.interval_timers_ = std::move(interval_timers);
  census.interceptors_ = interceptors;
  return census;
}

std::vector<std::string> HostAgents::newcomers_since(const HostAgents& before) const {
  std::vector<std::string> newcomers;
  if (!readable() || !before.readable()) return newcomers;
  for (long id : threads_) {
    if (before.threads_.contains(id)) continue;
    newcomers.push_back(described("thread", id, name_in(fmt::format("/proc/self/task/{}/comm", id))));
  }
  for (long id : children_) {
    if (before.children_.contains(id)) continue;
    newcomers.push_back(described("process", id, name_in(fmt::format("/proc/{}/comm", id))));
  }
  for (long id : posix_timers_) {
    if (!before.posix_timers_.contains(id)) newcomers.push_back(fmt::format("POSIX timer {}", id));
  }
  for (const std::string& timer : interval_timers_) {
    if (!before.interval_timers_.contains(timer)) newcomers.push_back("interval timer " + timer);
  }
  return newcomers;
}

std::vector<std::string> HostAgents::interceptors_since(const HostAgents& before, bool sigsys_handlers_counted) const {
  std::vector<std::string> found;
  if (!readable() || !before.readable()) return found;
  const SystemCallInterceptors& was = before.interceptors_;
  if (interceptors_.seccomp_filters > was.seccomp_filters) {
    found.push_back(fmt::format("{} more seccomp filter(s)", interceptors_.seccomp_filters - was.seccomp_filters));
  } else if (interceptors_.seccomp_mode != was.seccomp_mode) {
    found.push_back(fmt::format("seccomp mode {} (was {})", interceptors_.seccomp_mode, was.seccomp_mode));
  }
  if (sigsys_handlers_counted && interceptors_.sigsys_caught && !was.sigsys_caught) {
    found.push_back("a SIGSYS handler (what answers a call trapped by seccomp or by syscall user dispatch)");
  }
  if (interceptors_.tracer != 0 && interceptors_.tracer != was.tracer) {
    found.push_back(described("tracer process", interceptors_.tracer,
                              name_in(fmt::format("/proc/{}/comm", interceptors_.tracer))));
  }
  return found;
}

}  // namespace kopt::run
