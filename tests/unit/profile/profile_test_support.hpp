#pragma once
// The real H200 Nsight Compute 2025.3.1 reports under tests/fixtures/ncu/, and the metric map for them.

#include <stdexcept>
#include <string>

#include "kopt/core/files.hpp"
#include "kopt/profile/metric_map.hpp"
#include "kopt/profile/ncu_csv.hpp"

namespace kopt::profile::testing_support {

// The raw CSV export of one kernel's real report (vector_add, sgemm_naive, ...).
inline std::string fixture(const std::string& kernel) {
  return read_file(std::string(KOPT_FIXTURES_DIR) + "/ncu/ncu2025.3.1_h200_sm90_raw_" + kernel + ".csv");
}

inline KernelLaunch fixture_launch(const std::string& kernel) { return parse_ncu_raw_csv(fixture(kernel)).launches.at(0); }

inline MetricMap h200_map() {
  std::optional<MetricMap> map = load_metric_map("2025.3.1", "sm_90");
  if (!map) throw std::runtime_error("data/metrics.toml has no entry for ncu 2025.3 on sm_90");
  return *map;
}

}  // namespace kopt::profile::testing_support
