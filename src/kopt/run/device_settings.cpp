#include "kopt/run/device_settings.hpp"

#include <cuda_runtime.h>
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <string_view>

namespace kopt::run {
namespace {

struct LimitName {
  cudaLimit limit;
  std::string_view name;
};

// The stack size is not watched: the driver itself grows it for a kernel that needs more.
constexpr std::array kLimits{
    LimitName{cudaLimitPrintfFifoSize, "cudaLimitPrintfFifoSize"},
    LimitName{cudaLimitMallocHeapSize, "cudaLimitMallocHeapSize"},
    LimitName{cudaLimitDevRuntimeSyncDepth, "cudaLimitDevRuntimeSyncDepth"},
    LimitName{cudaLimitDevRuntimePendingLaunchCount, "cudaLimitDevRuntimePendingLaunchCount"},
    LimitName{cudaLimitMaxL2FetchGranularity, "cudaLimitMaxL2FetchGranularity"},
};
constexpr std::string_view kCacheConfig = "cudaDeviceSetCacheConfig";
constexpr std::string_view kDeviceFlags = "cudaSetDeviceFlags";

// A query or a set that CUDA refuses leaves its error as the thread's last one; kopt reads a
// kernel's launch errors there too, so only an error of ours is cleared, and one that was
// already pending is left for kopt to find.
class OwnErrorsCleared {
 public:
  OwnErrorsCleared() : pending_(cudaPeekAtLastError() != cudaSuccess) {}
  ~OwnErrorsCleared() {
    if (!pending_) cudaGetLastError();
  }
  OwnErrorsCleared(const OwnErrorsCleared&) = delete;
  OwnErrorsCleared& operator=(const OwnErrorsCleared&) = delete;

 private:
  bool pending_;
};

}  // namespace

DeviceSettings DeviceSettings::now() {
  const OwnErrorsCleared cleared;
  std::vector<Setting> settings;
  for (const LimitName& limit : kLimits) {
    std::size_t value = 0;
    const bool known = cudaDeviceGetLimit(&value, limit.limit) == cudaSuccess;
    settings.push_back({std::string(limit.name), value, known});
  }
  cudaFuncCache cache{};
  const bool cache_known = cudaDeviceGetCacheConfig(&cache) == cudaSuccess;
  settings.push_back({std::string(kCacheConfig), static_cast<std::size_t>(cache), cache_known});
  unsigned flags = 0;
  const bool flags_known = cudaGetDeviceFlags(&flags) == cudaSuccess;
  settings.push_back({std::string(kDeviceFlags), flags, flags_known});
  return of(std::move(settings));
}

DeviceSettings DeviceSettings::of(std::vector<Setting> settings) {
  DeviceSettings out;
  out.settings_ = std::move(settings);
  return out;
}

std::vector<std::string> DeviceSettings::changes_since(const DeviceSettings& before) const {
  std::vector<std::string> changes;
  for (const Setting& setting : settings_) {
    for (const Setting& earlier : before.settings_) {
      if (earlier.name != setting.name || !earlier.known || !setting.known || earlier.value == setting.value) continue;
      changes.push_back(fmt::format("{} {} -> {}", setting.name, earlier.value, setting.value));
    }
  }
  return changes;
}

void DeviceSettings::restore() const {
  const OwnErrorsCleared cleared;
  const DeviceSettings current = now();
  for (const Setting& setting : settings_) {
    // Only what differs is set: setting a device-runtime limit may make the runtime reserve
    // memory for it again.
    const auto same = [&](const Setting& c) { return c.name == setting.name && c.known && c.value == setting.value; };
    if (!setting.known || std::ranges::any_of(current.settings_, same)) continue;
    for (const LimitName& limit : kLimits) {
      if (limit.name == setting.name) cudaDeviceSetLimit(limit.limit, setting.value);
    }
    if (setting.name == kCacheConfig) cudaDeviceSetCacheConfig(static_cast<cudaFuncCache>(setting.value));
    if (setting.name == kDeviceFlags) cudaSetDeviceFlags(static_cast<unsigned>(setting.value));
  }
}

}  // namespace kopt::run
