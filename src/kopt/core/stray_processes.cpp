#include "kopt/core/stray_processes.hpp"

#include <dirent.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <charconv>
#include <cstring>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "kopt/core/process_maps.hpp"

namespace kopt {
namespace {

std::vector<pid_t> children_of(pid_t parent) {
  std::vector<pid_t> children;
  DIR* proc = ::opendir("/proc");
  if (proc == nullptr) return children;
  while (const dirent* entry = ::readdir(proc)) {
    pid_t pid = 0;
    const char* name = entry->d_name;
    const auto [end, error] = std::from_chars(name, name + std::strlen(name), pid);
    if (error != std::errc() || *end != '\0') continue;
    if (parent_of(pid) == std::optional<int>(parent)) children.push_back(pid);
  }
  ::closedir(proc);
  return children;
}

}  // namespace

void adopt_orphans() {
  static std::once_flag once;
  std::call_once(once, [] { ::prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); });
}

int end_stray_children(const std::function<bool(pid_t)>& is_running_child) {
  int ended = 0;
  // Each round ends the strays found; their own children are adopted and found next round.
  for (int round = 0; round < 64; ++round) {
    std::vector<pid_t> strays;
    for (pid_t child : children_of(::getpid())) {
      if (!is_running_child(child)) strays.push_back(child);
    }
    if (strays.empty()) break;
    for (pid_t stray : strays) {
      ::kill(stray, SIGKILL);
      ::waitpid(stray, nullptr, 0);
      ++ended;
    }
  }
  return ended;
}

}  // namespace kopt
