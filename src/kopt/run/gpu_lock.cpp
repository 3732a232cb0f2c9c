#include "kopt/run/gpu_lock.hpp"

#include <cctype>
#include <cstdio>

namespace kopt::run {

std::string gpu_lock_name(const nlohmann::json& device, int ordinal) {
  const std::string uuid = device.is_object() ? device.value("uuid", "") : "";
  std::string name = "gpu-";
  for (char c : uuid.empty() ? std::to_string(ordinal) : uuid) {
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '-') name += c;
  }
  return name;
}

HostLock lock_gpu(const nlohmann::json& device, int ordinal) {
  return HostLock(gpu_lock_name(device, ordinal), [](const std::string& line) {
    std::fprintf(stderr, "kopt: %s\n", line.c_str());
    std::fflush(stderr);
  });
}

}  // namespace kopt::run
