#pragma once
// The statistics of a workload experiment, on whole runs (each a fresh process): the
// original's own spread (the session's resolution), paired verdicts on the ratio of a
// candidate's metric to the original's within each round, constraints on secondary metrics,
// and the original's drift over the session. Pure functions; the math is in the comments.

#include <cstddef>
#include <span>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "kopt/workload/workload_spec.hpp"

namespace kopt::workload {

// The original repeated alone: how far one run's value moves. `half_width` is the relative
// half-width of the median's interval (order statistics, distribution-free): an effect below
// it cannot be resolved with this many runs of the original, whatever the pairing does.
struct Resolution {
  std::size_t runs = 0;
  double median = 0;
  double relative_stdev = 0;     // stdev / mean
  double relative_mad = 0;       // median absolute deviation / median
  double half_width = 0;         // (high - low) / 2 / median of the median's interval
};
Resolution resolution_of(std::span<const double> values, double level);

// Round i's cost ratio r_i: candidate / original for a metric where lower is better,
// original / candidate where higher is (so r < 1 always means the candidate is better). The
// verdict is on the median of the r_i and its distribution-free interval (the number of r_i
// below the true median is Binomial(n, 1/2): measure::median_ci_from_order_statistics; at 6
// rounds that is [min, max], 96.9 % coverage):
//   better     the interval lies below 1 and the median below 1 - min_effect
//   worse      the interval lies above 1 and the median above 1 + min_effect
//   same       the interval lies inside [1 - min_effect, 1 + min_effect]
//   ambiguous  anything else, and always below 5 rounds
// Order statistics rather than a bootstrap: with the few rounds a workload affords, the
// bootstrap's percentile interval is too narrow (its coverage falls well below its level).
struct PairedVerdict {
  std::size_t rounds = 0;
  double median_ratio = 1;
  double low = 1, high = 1;
  std::size_t rounds_better = 0;  // rounds in which the candidate did better
  std::string verdict = "ambiguous";
  // The gain on the metric's own terms: 1 / median_ratio ("1.05x": 5 % better).
  double gain() const { return median_ratio > 0 ? 1 / median_ratio : 0; }
};
PairedVerdict paired_verdict(std::span<const double> original, std::span<const double> candidate, Direction direction,
                             double min_effect, double level);

// A secondary metric may be worse by at most `max_worse`:
//   kept      the interval's upper end is within 1 + max_worse (proven)
//   broken    the median ratio is beyond it
//   unproven  neither: more rounds might tell, but a champion needs it kept
struct ConstraintCheck {
  std::string metric;
  double max_worse = 0;
  PairedVerdict ratio;
  std::string status = "unproven";
};
ConstraintCheck check_constraint(std::string metric, double max_worse, std::span<const double> original,
                                 std::span<const double> candidate, Direction direction, double level);

// The original's trend over the session, by run order: the Theil–Sen slope (the median of
// the pairwise slopes, robust to outliers) relative to the median, the change it amounts to
// over the session, and the Mann–Kendall test of a monotone trend (S = Σ sign(x_j - x_i),
// Var S = n(n-1)(2n+5)/18 without ties, z with a continuity correction, two-sided p).
struct Drift {
  std::size_t runs = 0;
  double slope_per_run = 0;      // relative to the median, per run of the original
  double session_change = 0;     // slope × (runs - 1): the drift from first to last run
  double kendall_tau = 0;
  double p_value = 1;
  bool significant = false;      // p < 0.05 and |session_change| at least half the min effect
};
Drift drift_of(std::span<const double> values_in_order, double min_effect);

void to_json(nlohmann::json& out, const Resolution& resolution);
void to_json(nlohmann::json& out, const PairedVerdict& verdict);
void to_json(nlohmann::json& out, const ConstraintCheck& check);
void to_json(nlohmann::json& out, const Drift& drift);

}  // namespace kopt::workload
