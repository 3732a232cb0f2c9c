#include "kopt/roofline/roofline.hpp"

#include <algorithm>
#include <cmath>

#include "kopt/core/error.hpp"

namespace kopt::roofline {
namespace {

double clamp_ratio(double ratio) { return std::clamp(std::isfinite(ratio) ? ratio : 0.0, 0.0, 1.0); }

// A side has several ceilings (FP32 FMA vs the busiest SM pipe; DRAM vs L2/L1/shared): the
// one it is closest to is the one it uses most, so its utilization is the larger reading.
// A naive SGEMM at 6 % of DRAM but 96 % of L1 is near a memory ceiling, not far from one.
double nearest_ceiling_utilization(double achieved, double peak, double throughput) {
  return clamp_ratio(std::max(achieved / peak, throughput));
}

}  // namespace

double Gaps::of(Axis axis) const {
  switch (axis) {
    case Axis::compute: return compute;
    case Axis::memory: return memory;
    case Axis::latency: return latency;
  }
  return 0;
}

Bound classify_bound(double compute_utilization, double memory_utilization, double waves_per_sm) {
  if (compute_utilization < kLowThroughput && memory_utilization < kLowThroughput) {
    return waves_per_sm < 1 ? Bound::small_grid : Bound::latency;
  }
  if (compute_utilization == memory_utilization) return Bound::compute_and_memory;
  return compute_utilization > memory_utilization ? Bound::compute : Bound::memory;
}

RooflinePoint place_on_roofline(const RooflineInputs& in) {
  if (!(in.peak_flop_per_second > 0) || !(in.peak_bytes_per_second > 0)) {
    throw input_error("roofline: peaks must be positive (got {} FLOP/s, {} bytes/s)", in.peak_flop_per_second,
                      in.peak_bytes_per_second);
  }
  RooflinePoint point;
  if (in.achieved_bytes_per_second > 0) {
    point.arithmetic_intensity = in.achieved_flop_per_second / in.achieved_bytes_per_second;
  }
  point.ridge_point = in.peak_flop_per_second / in.peak_bytes_per_second;
  point.compute_utilization =
      nearest_ceiling_utilization(in.achieved_flop_per_second, in.peak_flop_per_second, in.sm_throughput);
  point.memory_utilization =
      nearest_ceiling_utilization(in.achieved_bytes_per_second, in.peak_bytes_per_second, in.memory_throughput);
  point.flop_ratio = clamp_ratio(in.achieved_flop_per_second / in.peak_flop_per_second);
  point.sm_throughput = clamp_ratio(in.sm_throughput);
  point.dram_bytes_ratio = clamp_ratio(in.achieved_bytes_per_second / in.peak_bytes_per_second);
  point.memory_throughput = clamp_ratio(in.memory_throughput);
  point.gaps = Gaps{.compute = 1 - point.compute_utilization,
                    .memory = 1 - point.memory_utilization,
                    .latency = clamp_ratio(in.largest_stall_share)};
  point.bound = classify_bound(point.compute_utilization, point.memory_utilization, in.waves_per_sm);
  point.high_throughput = std::max(point.compute_utilization, point.memory_utilization) >= kHighThroughput;
  point.near_peak = std::ranges::all_of(kAxes, [&](Axis axis) { return point.gaps.of(axis) < kNearPeakGap; });
  return point;
}

std::optional<double> above_ceiling(double achieved, double peak) {
  if (!(peak > 0) || !std::isfinite(achieved)) return std::nullopt;
  const double ratio = achieved / peak;
  return ratio > 1 + kAboveCeilingMargin ? std::optional<double>(ratio) : std::nullopt;
}

// Hamilton's largest-remainder method: each eligible axis (gap ≥ 0.10) gets the whole part
// of its quota 3·gap/Σgap, capped at 2; the methods left go one each to the axes with the
// largest fractional remainders that are still under the cap, ties going to the larger gap
// and then to kAxes order (compute, memory, latency). With one eligible axis the budget is
// 2, not 3; with none it is 0, and the kernel is near its peak on every axis.
AxisBudget split_axis_budget(const Gaps& gaps) {
  AxisBudget budget;
  double eligible_sum = 0;
  for (Axis axis : kAxes) {
    if (gaps.of(axis) >= kMinBudgetGap) eligible_sum += gaps.of(axis);
  }
  if (eligible_sum == 0) return budget;
  std::array<double, 3> remainder{};
  for (Axis axis : kAxes) {
    const size_t i = static_cast<size_t>(axis);
    if (gaps.of(axis) < kMinBudgetGap) continue;
    // Rounded to 1e-9 so that quotas equal on paper (1.5 and 1.5) are equal in floating point.
    const double quota = std::round(kBudgetMethods * gaps.of(axis) / eligible_sum * 1e9) / 1e9;
    budget.methods[i] = std::min(static_cast<int>(std::floor(quota)), kMaxMethodsPerAxis);
    remainder[i] = quota - std::floor(quota);
  }
  auto comes_first = [&](Axis a, Axis b) {
    const size_t i = static_cast<size_t>(a), j = static_cast<size_t>(b);
    if (remainder[i] != remainder[j]) return remainder[i] > remainder[j];
    if (gaps.of(a) != gaps.of(b)) return gaps.of(a) > gaps.of(b);
    return i < j;
  };
  std::array<Axis, 3> order = kAxes;
  std::ranges::stable_sort(order, comes_first);
  for (Axis axis : order) {
    const size_t i = static_cast<size_t>(axis);
    if (budget.total() == kBudgetMethods) break;
    if (gaps.of(axis) >= kMinBudgetGap && budget.methods[i] < kMaxMethodsPerAxis) ++budget.methods[i];
  }
  return budget;
}

std::string_view to_string(Axis axis) {
  switch (axis) {
    case Axis::compute: return "compute";
    case Axis::memory: return "memory";
    case Axis::latency: return "latency";
  }
  return "?";
}

std::string_view to_string(Bound bound) {
  switch (bound) {
    case Bound::compute: return "compute";
    case Bound::memory: return "memory";
    case Bound::compute_and_memory: return "compute_and_memory";
    case Bound::latency: return "latency";
    case Bound::small_grid: return "small_grid";
  }
  return "?";
}

}  // namespace kopt::roofline
