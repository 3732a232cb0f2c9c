#pragma once
// The device-wide settings a solve can change and leave changed: the defaults that every later
// kernel of the process runs under (cache configuration, the L2 fetch granularity, the device
// runtime's limits, the host's way of waiting). A variant that changes them after its own calls
// slows the variants timed after it in the same worker (a competitor, the reference) without
// leaving a thread behind; the timing worker puts them back after every sample and names the
// variant (docs/integrity.md, "Agents left behind"). The persisting-L2 limit is not here: kopt
// zeroes it before every sample itself.

#include <cstddef>
#include <string>
#include <vector>

namespace kopt::run {

class DeviceSettings {
 public:
  // The current device's settings; CUDA must be initialized on it.
  static DeviceSettings now();

  // "cudaLimitMaxL2FetchGranularity 64 -> 32", one per setting that differs from `before`.
  std::vector<std::string> changes_since(const DeviceSettings& before) const;

  // Sets every setting that differs now back to these values; those CUDA refuses to set (a
  // heap limit once a kernel has used the heap) are left as they are.
  void restore() const;

  struct Setting {
    std::string name;
    std::size_t value = 0;
    bool known = false;  // CUDA answered the query
  };
  // For tests: settings as CUDA would report them.
  static DeviceSettings of(std::vector<Setting> settings);

 private:
  std::vector<Setting> settings_;
};

}  // namespace kopt::run
