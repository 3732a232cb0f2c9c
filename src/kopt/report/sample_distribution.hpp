#pragma once
// The spread of the timing samples behind the baseline's and the best's median: every sample
// kopt kept of them (the kopt.bench reports a run writes beside its measurements), drawn as a
// strip plot on one shared time axis with each median and its 95 % interval marked.
//
// The medians and intervals are summary.json's, so the chart shows summary.md's numbers; the
// samples are those of the very measurement that gave each median, and are left out (with the
// reason, in one line of the chart) when the run did not keep them.

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kopt/loop/run_state.hpp"

namespace kopt::report {

struct SampleDistribution {
  std::string label;                  // "baseline", "best (iter4/champion)"
  double median_s = 0;                // summary.json's median, seconds per solve call
  double ci_low_s = 0, ci_high_s = 0; // its 95 % interval; both 0: unknown
  std::vector<double> samples_s;      // every kept sample; empty when not kept
  std::string missing;                // why there are no samples; empty when there are
};

// The baseline's, and the best's when an iteration beat the baseline: the baseline's samples
// are in baseline/baseline_bench.json, a champion's in its iteration's finals_bench.json
// (the measurement that crowned it), a best with a harmful method switched off in its
// iteration's ablation_bench.json. Samples whose median is not the summary's are refused.
std::vector<SampleDistribution> kept_sample_distributions(const loop::RunFolder& run, const nlohmann::json& summary);

// The strip plot: one band per distribution (its samples as dots, its interval as a shaded
// span, its median as a red line carrying data-value = the median in seconds) over one time
// axis in µs; below it, the same samples as distances from their own median in %, one shared
// scale on which the spreads compare even when the times are far apart. Without any samples
// it is the title and one line saying why.
std::string render_distribution_svg(const std::vector<SampleDistribution>& distributions);

// Ticks for a linear axis over [low, high]: steps of 1, 2 or 5 × 10^k, at most about `count`.
std::vector<double> linear_ticks(double low, double high, int count);

}  // namespace kopt::report
