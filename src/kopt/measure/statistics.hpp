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
  ConfidenceInterval median_ci;  // percentile bootstrap
};

// All of the above; the median's interval from `resamples` bootstrap resamples drawn with a
// fixed seed, so the same samples always give the same interval.
Summary summarize(std::span<const double> samples, int resamples = 2000, std::uint64_t seed = 1);

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

void to_json(nlohmann::json& out, const ConfidenceInterval& ci);
void to_json(nlohmann::json& out, const Summary& summary);

}  // namespace kopt::measure
