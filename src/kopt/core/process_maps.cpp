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

}  // namespace kopt
