#pragma once
// Plan inputs from a captured Nsight Compute raw export, as kopt plans on the H200: every
// launch's concepts through the metric map (combined over the launches of the call), the
// roofline from them against the H200 datasheet ceilings (4.8e12 B/s, 67e12 FP32 FLOP/s).

#include <algorithm>
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "kopt/catalog/planner.hpp"
#include "kopt/core/files.hpp"
#include "kopt/profile/launch_aggregate.hpp"
#include "kopt/profile/metric_map.hpp"
#include "kopt/profile/ncu_csv.hpp"
#include "kopt/roofline/roofline.hpp"
#include "kopt/roofline/roofline_analysis.hpp"

namespace kopt::catalog {

inline PlanInputs h200_plan_inputs(const std::string& raw_csv_path, bool fp32_exact = true) {
  const profile::NcuReport report = profile::parse_ncu_raw_csv(read_file(raw_csv_path));
  static const profile::MetricMap map = *profile::load_metric_map("2025.3.1", "sm_90");
  std::vector<profile::LaunchConcepts> launches;
  for (const profile::KernelLaunch& launch : report.launches) launches.push_back(profile::launch_concepts(map, launch));
  const profile::WholeCall whole = profile::aggregate_launches(map, launches);
  auto value = [&](const std::string& name) { return whole.values.at(name).value_or(0.0); };
  const double largest_stall = roofline::latency_stall_share(whole, map);  // kopt roofline's latency gap
  const roofline::RooflinePoint point = roofline::place_on_roofline(
      {.achieved_flop_per_second = value("fp32_flop_per_second"),
       .achieved_bytes_per_second = value("dram_bytes_per_second"),
       .peak_flop_per_second = 67e12,
       .peak_bytes_per_second = 4.8e12,
       .sm_throughput = value("sm_throughput"),
       .memory_throughput = value("memory_throughput"),
       .largest_stall_share = largest_stall,
       .waves_per_sm = value("waves_per_sm")});
  ProfileEvidence profile{.arch = "sm_90", .dtype = "fp32", .concepts = whole.values};
  return PlanInputs{.profile = profile, .roofline = roofline_evidence(point, {}), .arch = 90, .fp32_exact = fp32_exact,
                    .dtype = "fp32"};
}

// The same concepts with kopt roofline's own placement (its roofline.json) where one was kept.
inline PlanInputs h200_plan_inputs(const std::string& raw_csv_path, const std::string& roofline_json_path) {
  PlanInputs inputs = h200_plan_inputs(raw_csv_path);
  if (std::filesystem::exists(roofline_json_path)) {
    inputs.roofline = parse_roofline_json(read_json_file(roofline_json_path), roofline_json_path);
  }
  return inputs;
}

}  // namespace kopt::catalog
