#pragma once
// When to stop taking samples: once the verdict has what it needs. The verdicts compare medians
// against a minimum effect (verdict.hpp), so sampling stops when the 95 % interval of the
// median is narrow enough for that effect, not when the per-sample spread is small: a noisy
// kernel's median can be known to ±0.1 % while its samples scatter by 3 %.
//
// The interval is the order-statistic interval of the median (statistics.hpp), widened by one
// timer tick on each side (widened_by_resolution); its relative half-width is
//   h = max(median - low, high - median) / median.
// check() decides, first match wins:
//   max_samples         count >= max_samples
//   median_precise      minimums met and h <= target_half_width
//   resolution_limited  minimums met and the interval before widening is no wider than one
//                       tick on either side: h is at least twice the tick's share, and more
//                       samples cannot bring it under that (time more calls per sample instead)
//   timeout             elapsed wall time >= timeout_seconds
//   still_running       otherwise
// and, for a budgeted variant of a case (the reference; CaseStopping below):
//   budget_spent        it has as much GPU time as the first kernel (and 5 samples), or the
//                       kernels are done: the reference is never timed longer than the kernel
// Minimums: count >= max(min_samples, 2) and accumulated GPU time >= min_gpu_seconds.
// The samples are kept sorted as they arrive (one insertion each), so check() is O(1).
// The relative stdev (the sample spread) is kept too, for the report (Welford).

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace kopt::measure {

// kopt's target for the half-width is a quarter of the minimum effect. Two variants' medians
// known to ±e/4 each give a ratio known to about ±0.35 e (their errors add in quadrature), so
// an A/A estimate must stray 0.65 e ≈ 3.6 standard errors from 1 before its interval leaves
// [1 - e, 1 + e] ("same"), and a true difference of 2 e is called with its interval well
// clear of 1. A half (±0.71 e on the ratio) would leave most A/A runs "ambiguous"; the cost
// grows as 1 / target^2, so an eighth would take four times the samples for little.
constexpr double kHalfWidthPerMinEffect = 0.25;
constexpr double half_width_for_min_effect(double min_effect) { return kHalfWidthPerMinEffect * min_effect; }

struct StoppingSettings {
  double target_half_width = half_width_for_min_effect(0.01);  // relative; 1.0 = 100 %
  std::size_t min_samples = 10;
  // Accumulated measured time. Clock and power management act over milliseconds; 10 ms spans
  // several of their steps, so a set of samples is not one transient state, and it costs
  // little next to the one-second aim of a bench (the 0.5 s of nvbench's stdrel did not).
  double min_gpu_seconds = 0.01;
  double timeout_seconds = 15;  // wall time of the measurement
  std::size_t max_samples = 100000;
};

enum class StopReason { still_running, median_precise, resolution_limited, timeout, max_samples, budget_spent };

std::string_view stop_reason_name(StopReason reason);  // "median_precise", ...

class StoppingCriterion {
 public:
  // `resolution_seconds`: one timer tick as a share of one sample (tick / calls per sample).
  explicit StoppingCriterion(StoppingSettings settings, double resolution_seconds = 0);

  // Adds one sample: `seconds` of GPU time per call, of `calls` calls (a batch or a graph
  // replay: the sample lasted calls × seconds, which is what counts toward min_gpu_seconds).
  void add_sample(double seconds, int calls = 1);
  // Whether to stop, given the wall time spent so far.
  StopReason check(double elapsed_wall_seconds) const;

  std::size_t count() const { return sorted_.size(); }
  double total_seconds() const { return total_seconds_; }  // GPU time of every call sampled
  double relative_stdev() const;
  // h above, widened by the resolution; and the part the samples alone give. Infinity below
  // one sample or for a median <= 0.
  double relative_half_width() const;
  double statistical_half_width() const;

 private:
  StoppingSettings settings_;
  double resolution_;
  std::vector<double> sorted_;
  double total_seconds_ = 0;
  // Welford's running mean and sum of squared deviations M2 = sum (x_i - mean)^2.
  double mean_ = 0;
  double m2_ = 0;

  bool minimums_met() const;
  double median() const;
};

// The variants of one case are sampled in rounds (one sample each) and the kernels stop
// together, so that every pair of them stays interleaved to the end and a ratio never compares
// samples of different periods: a kernel's reason is fixed the first time its criterion stops
// (max_samples also ends its sampling; any other reason does not), and the case is done when
// every kernel has one. A budgeted variant (the reference, which gets a speedup but no
// minimum-effect verdict that decides anything) stops on its own as soon as its criterion does,
// or once it has kMinBudgetedSamples and as much GPU time as the first kernel; what is left of
// it when the kernels are done ends as budget_spent.
constexpr std::size_t kMinBudgetedSamples = 5;  // the fewest a verdict takes (ComparisonSettings)

class CaseStopping {
 public:
  explicit CaseStopping(std::vector<bool> budgeted);
  // After each round, with every variant's criterion (in the constructor's order) and the
  // case's wall time so far; true when the case is done.
  bool update(const std::vector<const StoppingCriterion*>& criteria, double elapsed_wall_seconds);
  bool sampling(std::size_t variant) const;  // whether it takes a sample in the next round
  StopReason reason(std::size_t variant) const { return reasons_.at(variant); }

 private:
  std::vector<bool> budgeted_;
  std::vector<StopReason> reasons_;
};

}  // namespace kopt::measure
