#pragma once
// Statistics of timing samples, as pure functions on vectors of seconds. The math is in the
// comments; tests check closed-form cases.

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace kopt::measure {

// Linear interpolation between order statistics (Hyndman & Fan type 7, numpy's default):
// h = (n - 1) q, result = x[floor h] + (h - floor h)(x[floor h + 1] - x[floor h]).
// q in [0, 1]; the samples need not be sorted. Throws std::invalid_argument on an empty span.
double quantile(std::span<const double> samples, double q);
double median(std::span<const double> samples);
double mean(std::span<const double> samples);
// Sample standard deviation (n - 1 in the denominator); 0 for fewer than 2 samples.
double sample_stdev(std::span<const double> samples);

struct ConfidenceInterval {
  double low = 0;
  double high = 0;
  double level = 0.95;
};

struct Summary {
  std::size_t count = 0;
  double mean = 0;
  double median = 0;
  double stdev = 0;
  double relative_stdev = 0;   // stdev / mean; 1.0 = 100 %
  double min = 0;
  double max = 0;
  double q1 = 0;               // 25th percentile
  double q3 = 0;               // 75th percentile
  double p10 = 0;
  double p90 = 0;
  ConfidenceInterval median_ci;  // order statistics, widened by the timer's resolution
};

// All of the above; the median's interval is median_ci_from_order_statistics, widened by
// `resolution` seconds on each side (widened_by_resolution).
Summary summarize(std::span<const double> samples, double resolution = 0);

// The distribution-free interval of the median from order statistics: the number of samples
// below the true median is Binomial(n, 1/2), so with its normal approximation and
// z = Phi^-1((1 + level) / 2) the interval is [x_(l), x_(u)] (1-based ranks)
//   l = floor((n + 1) / 2 - z sqrt(n) / 2),  u = ceil((n + 1) / 2 + z sqrt(n) / 2),
// clamped to [1, n] (Conover, Practical Nonparametric Statistics, 3.2). For n = 10 at 95 %
// that is [x_(2), x_(9)], whose exact coverage is 97.9 %.
struct OrderRanks {
  std::size_t low = 0;   // 0-based indices into the sorted samples
  std::size_t high = 0;
};
OrderRanks median_ci_ranks(std::size_t n, double level = 0.95);
ConfidenceInterval median_ci_from_sorted(std::span<const double> sorted, double level = 0.95);
ConfidenceInterval median_ci_from_order_statistics(std::span<const double> samples, double level = 0.95);

// Phi^-1(p), the standard normal quantile, by Newton's method on std::erfc; p in (0, 1).
double normal_quantile(double p);

// A timer that counts in ticks of `resolution` seconds reads an elapsed time as the difference
// of two rounded timestamps, so one reading may be off by up to one tick either way, and a
// median of readings whose jitter is below a tick inherits that error: the interval of the
// median is widened by one tick on each side, so it is never narrower than two ticks.
ConfidenceInterval widened_by_resolution(ConfidenceInterval ci, double resolution);

// Percentile bootstrap CI of median(samples).
ConfidenceInterval bootstrap_median_ci(std::span<const double> samples, double level = 0.95, int resamples = 2000,
                                       std::uint64_t seed = 1);

// Percentile bootstrap CI of median(b) / median(a), resampling a and b independently.
// The point estimate is median(b) / median(a).
struct RatioEstimate {
  double ratio = 1;
  ConfidenceInterval ci;
};
RatioEstimate bootstrap_median_ratio(std::span<const double> a, std::span<const double> b, double level = 0.95,
                                     int resamples = 2000, std::uint64_t seed = 1);

// The ratio's interval widened for the resolution of each side's times (widened_by_resolution):
// each median may be off by one tick, in the direction that widens the ratio most:
//   low' = low (1 - r_b / m_b) / (1 + r_a / m_a),  high' = high (1 + r_b / m_b) / (1 - r_a / m_a),
// with m the medians and r the resolutions (seconds per sample). A median within one tick of
// zero says nothing: the interval is then [0, the largest double] (JSON has no infinity).
RatioEstimate ratio_widened_by_resolution(RatioEstimate estimate, double median_a, double resolution_a,
                                          double median_b, double resolution_b);

void to_json(nlohmann::json& out, const ConfidenceInterval& ci);
void to_json(nlohmann::json& out, const Summary& summary);

}  // namespace kopt::measure
