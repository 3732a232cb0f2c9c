#pragma once
// Whether Nsight Compute works here, found out the only reliable way: by profiling a tiny
// kernel for real and reading a counter back. `ncu --query-metrics` succeeds on machines
// where every real profile then fails for lack of permission to read the counters.

#include <string>

#include <nlohmann/json.hpp>

#include "kopt/run/device_info.hpp"
#include "kopt/verify/check.hpp"

namespace kopt::profile {

struct NcuProbe {
  bool found = false;      // an ncu program exists
  bool counters = false;   // and it profiled a kernel and read its counters
  std::string path;
  std::string version;     // "2025.3.1"
  std::string detail;      // what happened; when something failed, how to fix it
};

NcuProbe probe_ncu(verify::CheckContext& context, const run::DeviceInfo& device);

nlohmann::json ncu_probe_to_json(const NcuProbe& probe);

// Worker side of the probe: {"kind":"ncu_probe","library":...,"device":N}.
nlohmann::json execute_ncu_probe_job(const nlohmann::json& job);

}  // namespace kopt::profile
