#include "kopt/roofline/roofline_analysis.hpp"

#include <algorithm>

#include "kopt/core/error.hpp"

namespace kopt::roofline {

namespace {

double value_or_zero(const profile::WholeCall& whole, const std::string& name) {
  auto it = whole.values.find(name);
  return it != whole.values.end() && it->second ? *it->second : 0.0;
}


double peak_of(const measure::DevicePeaks& peaks, const std::string& rate) {
  auto it = peaks.flops.find(rate);
  return it == peaks.flops.end() ? 0.0 : it->second;
}

RooflineAnalysis place(RooflineInputs inputs, const measure::DevicePeaks& peaks,
                       const spec::PrecisionPolicy& precision) {
  RooflineAnalysis analysis;
  analysis.compute_ceiling = measure::fastest_rate_for(peaks, precision);
  analysis.precision = precision.name;
  inputs.peak_flop_per_second = peak_of(peaks, analysis.compute_ceiling);
  inputs.peak_bytes_per_second = peaks.dram_bytes_per_second;
  if (inputs.peak_flop_per_second <= 0 || inputs.peak_bytes_per_second <= 0) {
    throw environment_error("no compute or memory ceiling is known for {} (precision {}): run kopt doctor --peaks",
                            peaks.name, precision.name);
  }
  analysis.inputs = inputs;
  analysis.point = place_on_roofline(inputs);
  analysis.budget = split_axis_budget(analysis.point.gaps);
  auto source = [&](const std::string& rate) {
    return peaks.is_measured(rate) ? PeaksSource::measured : PeaksSource::datasheet;
  };
  analysis.sources.flop_peak = source(analysis.compute_ceiling);
  analysis.sources.bytes_peak = source("dram");
  return analysis;
}

}  // namespace

double latency_stall_share(const profile::WholeCall& whole, const profile::MetricMap& map) {
  double largest = 0;
  for (const auto& [name, value] : whole.values) {
    const profile::ConceptSpec* spec = map.find(name);
    if (name.starts_with("stall_") && value && spec != nullptr && spec->axis == "latency") largest = std::max(largest, *value);
  }
  return largest;
}

RooflineAnalysis roofline_from_profile(const profile::WholeCall& whole, const profile::MetricMap& map,
                                       const measure::DevicePeaks& peaks, const spec::PrecisionPolicy& precision,
                                       double spec_flops) {
  RooflineInputs inputs;
  inputs.achieved_flop_per_second = value_or_zero(whole, "fp32_flop_per_second");
  bool from_counters = inputs.achieved_flop_per_second > 0;
  if (!from_counters && spec_flops > 0 && whole.duration_s > 0) inputs.achieved_flop_per_second = spec_flops / whole.duration_s;
  inputs.achieved_bytes_per_second = value_or_zero(whole, "dram_bytes_per_second");
  inputs.sm_throughput = value_or_zero(whole, "sm_throughput");
  inputs.memory_throughput = value_or_zero(whole, "memory_throughput");
  inputs.largest_stall_share = latency_stall_share(whole, map);
  inputs.waves_per_sm = value_or_zero(whole, "waves_per_sm");
  RooflineAnalysis analysis = place(inputs, peaks, precision);
  analysis.sources.achieved = from_counters || spec_flops <= 0 ? AchievedSource::ncu : AchievedSource::work_formulas;
  return analysis;
}

RooflineAnalysis roofline_from_timing(double seconds, double flops, double bytes, const measure::DevicePeaks& peaks,
                                      const spec::PrecisionPolicy& precision, std::string reason) {
  if (seconds <= 0) throw input_error("the roofline needs a positive measured time");
  RooflineInputs inputs;
  inputs.achieved_flop_per_second = flops / seconds;
  inputs.achieved_bytes_per_second = bytes / seconds;
  // Without counters the waves are unknown: take the grid as full rather than call it small.
  inputs.waves_per_sm = 1;
  RooflineAnalysis analysis = place(inputs, peaks, precision);
  analysis.sources.achieved = AchievedSource::work_formulas;
  analysis.degraded = true;
  analysis.reason = std::move(reason);
  return analysis;
}

nlohmann::json roofline_analysis_json(const RooflineAnalysis& a) {
  nlohmann::json document = roofline_json(a.inputs, a.point, a.budget, a.degraded, a.reason, a.sources);
  document["compute_ceiling"] = a.compute_ceiling;
  document["precision"] = a.precision;
  return document;
}

}  // namespace kopt::roofline
