#include "kopt/core/process_maps.hpp"

#include <fstream>
#include <sstream>

namespace kopt {

std::optional<std::string> read_process_smaps(int pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/smaps");
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return std::nullopt;
  return text.str();
}

namespace {
struct StatFields {
  char state = 0;
  int parent = 0;
};

// The third and fourth fields of /proc/PID/stat, after the command name in parentheses
// (which may itself hold spaces and parentheses, hence the last ')').
std::optional<StatFields> read_stat(int pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat;
  if (!in || !std::getline(in, stat)) return std::nullopt;
  const std::size_t close = stat.rfind(')');
  if (close == std::string::npos) return std::nullopt;
  std::istringstream fields(stat.substr(close + 1));
  StatFields read;
  if (!(fields >> read.state >> read.parent)) return std::nullopt;
  return read;
}
}  // namespace

bool process_running(int pid) {
  const std::optional<StatFields> stat = read_stat(pid);
  return stat && stat->state != 'Z' && stat->state != 'X';
}

std::optional<int> parent_of(int pid) {
  const std::optional<StatFields> stat = read_stat(pid);
  if (!stat) return std::nullopt;
  return stat->parent;
}

bool is_same_or_descendant(int pid, int ancestor) {
  for (int steps = 0; pid > 1 && steps < 64; ++steps) {
    if (pid == ancestor) return true;
    const std::optional<int> parent = parent_of(pid);
    if (!parent) return false;
    pid = *parent;
  }
  return pid == ancestor;
}

}  // namespace kopt
