#include "kopt/core/interrupt.hpp"

#include <signal.h>
#include <unistd.h>

#include <fmt/format.h>

#include <stdlib.h>

#include <cstdio>
#include <cstring>
#include <mutex>
#include <set>
#include <thread>

namespace kopt {
namespace {

struct Registry {
  std::mutex mutex;
  std::set<pid_t> groups;
  std::set<std::filesystem::path> temporaries;
};

Registry& registry() {
  static Registry* instance = new Registry;  // never destroyed: the waiting thread outlives main
  return *instance;
}

sigset_t interrupt_signals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGHUP);
  return set;
}

const char* signal_name(int signal) {
  switch (signal) {
    case SIGINT: return "SIGINT";
    case SIGTERM: return "SIGTERM";
    case SIGHUP: return "SIGHUP";
    default: return "a signal";
  }
}

// Holds the registry's lock until _exit: no thread registers a child or creates a temporary
// after the cleanup has passed it.
[[noreturn]] void stop_everything(int signal) {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  for (pid_t group : r.groups) ::kill(-group, SIGKILL);
  for (const std::filesystem::path& path : r.temporaries) {
    std::error_code ignored;
    std::filesystem::remove_all(path, ignored);
  }
  // A live progress line may be drawn on a terminal: start the message on a clean line.
  const std::string clear = ::isatty(STDERR_FILENO) ? "\r\033[K" : "";
  const std::string line =
      fmt::format("{}kopt: interrupted by {}; ended {} child process group{}\n", clear, signal_name(signal),
                  r.groups.size(), r.groups.size() == 1 ? "" : "s");
  (void)!::write(STDERR_FILENO, line.data(), line.size());
  ::_exit(128 + signal);
}

}  // namespace

void install_interrupt_handler() {
  static std::once_flag once;
  std::call_once(once, [] {
    const sigset_t set = interrupt_signals();
    pthread_sigmask(SIG_BLOCK, &set, nullptr);
    std::thread([set] {
      int signal = 0;
      while (sigwait(&set, &signal) != 0) {
      }
      stop_everything(signal);
    }).detach();
  });
}

void unblock_interrupt_signals_in_child() {
  const sigset_t set = interrupt_signals();
  sigprocmask(SIG_UNBLOCK, &set, nullptr);
}

void track_child_group(pid_t group) {
  std::lock_guard lock(registry().mutex);
  registry().groups.insert(group);
}

void untrack_child_group(pid_t group) {
  std::lock_guard lock(registry().mutex);
  registry().groups.erase(group);
}

bool is_tracked_child_group(pid_t group) {
  std::lock_guard lock(registry().mutex);
  return registry().groups.contains(group);
}

bool end_tracked_child_group(pid_t group) {
  std::lock_guard lock(registry().mutex);
  if (group <= 1 || !registry().groups.contains(group)) return false;
  ::kill(-group, SIGKILL);
  return true;
}

void track_temporary(const std::filesystem::path& path) {
  std::lock_guard lock(registry().mutex);
  registry().temporaries.insert(path);
}

int make_tracked_temporary_file(std::string& pattern) {
  std::lock_guard lock(registry().mutex);
  const int fd = ::mkstemp(pattern.data());
  if (fd >= 0) registry().temporaries.insert(pattern);
  return fd;
}

bool make_tracked_temporary_folder(std::string& pattern) {
  std::lock_guard lock(registry().mutex);
  if (::mkdtemp(pattern.data()) == nullptr) return false;
  registry().temporaries.insert(pattern);
  return true;
}

void untrack_temporary(const std::filesystem::path& path) {
  std::lock_guard lock(registry().mutex);
  registry().temporaries.erase(path);
}

}  // namespace kopt
