#pragma once
// The inputs of the roofline, gathered: achieved rates and the throughput readings from a
// profile's whole call, the ceilings from measured (or datasheet) peaks, each ceiling's source
// taken from the peaks (DevicePeaks::measured) — or, in degraded
// mode, from a measured time and the spec's work formulas alone.

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "kopt/measure/peaks.hpp"
#include "kopt/profile/launch_aggregate.hpp"
#include "kopt/profile/metric_map.hpp"
#include "kopt/roofline/roofline.hpp"
#include "kopt/roofline/roofline_json.hpp"
#include "kopt/spec/precision.hpp"

namespace kopt::roofline {

struct RooflineAnalysis {
  RooflineInputs inputs;
  RooflinePoint point;
  AxisBudget budget;
  RooflineSources sources;
  bool degraded = false;
  std::optional<std::string> reason;
  std::string compute_ceiling;   // the peak the compute side is held against: "fp32", "bf16_tensor"
  std::string precision;         // the policy that chose it (data/precisions.toml): "fp32", "bf16"
};

// The latency gap: the largest share of a warp stall that is latency — a stall concept of the
// metric map on the latency axis (long and short scoreboard, barrier, membar, the memory
// throttles, wait, ...). A warp "not selected" had another ready warp beside it, and a math
// pipe throttle is a full pipe: issue saturation, which data/metrics.toml puts on the compute
// axis, so a compute-saturated kernel's latency gap stays small (issue 58).
double latency_stall_share(const profile::WholeCall& whole, const profile::MetricMap& map);

// From a profile (its whole call, resolved through `map`). `spec_flops` (the spec's [work]
// flops for this case, 0 when absent) is used when the counters see no FP32 work (half
// precision, tensor cores, integer kernels).
RooflineAnalysis roofline_from_profile(const profile::WholeCall& whole, const profile::MetricMap& map,
                                       const measure::DevicePeaks& peaks, const spec::PrecisionPolicy& precision,
                                       double spec_flops);

// Degraded: no counters. Achieved rates are the spec's work over the measured median time;
// there are no stall readings, so Δlatency is unknown (0) and the reason says so.
RooflineAnalysis roofline_from_timing(double seconds, double flops, double bytes, const measure::DevicePeaks& peaks,
                                      const spec::PrecisionPolicy& precision, std::string reason);

nlohmann::json roofline_analysis_json(const RooflineAnalysis& analysis);

}  // namespace kopt::roofline
