#include "kopt/measure/statistics.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <random>
#include <stdexcept>

namespace kopt::measure {

namespace {

void require_samples(std::span<const double> samples, const char* what) {
  if (samples.empty()) throw std::invalid_argument(std::string(what) + " of no samples");
}

void require_resamplable(std::span<const double> samples) {
  require_samples(samples, "bootstrap");
  if (samples.size() > std::numeric_limits<std::uint32_t>::max()) throw std::invalid_argument("bootstrap of more than 2^32 - 1 samples");
}

void require_level(double level, int resamples) {
  if (!(level > 0 && level < 1)) throw std::invalid_argument("confidence level must lie in (0, 1)");
  if (resamples < 1) throw std::invalid_argument("bootstrap needs at least one resample");
}

// Type 7 on already sorted samples: h = (n - 1) q, x[floor h] + (h - floor h)(x[floor h + 1] - x[floor h]).
double sorted_quantile(std::span<const double> sorted, double q) {
  const double h = static_cast<double>(sorted.size() - 1) * q;
  const auto lo = static_cast<std::size_t>(std::floor(h));
  if (lo + 1 >= sorted.size()) return sorted[sorted.size() - 1];
  return sorted[lo] + (h - static_cast<double>(lo)) * (sorted[lo + 1] - sorted[lo]);
}

// Type 7 in O(n) by selection: x[floor h] is the (floor h)-th order statistic, and x[floor h + 1]
// is the smallest element of the partition above it. Reorders `scratch`.
double select_quantile(std::vector<double>& scratch, double q) {
  const double h = static_cast<double>(scratch.size() - 1) * q;
  const auto lo = static_cast<std::size_t>(std::floor(h));
  const auto nth = scratch.begin() + static_cast<std::ptrdiff_t>(lo);
  std::nth_element(scratch.begin(), nth, scratch.end());
  const double frac = h - static_cast<double>(lo);
  if (frac == 0 || lo + 1 >= scratch.size()) return *nth;
  return *nth + frac * (*std::min_element(nth + 1, scratch.end()) - *nth);
}

// 32 random bits at a time: the low, then the high half of each std::mt19937_64 draw.
class RandomBits {
 public:
  explicit RandomBits(std::uint64_t seed) : rng_(seed) {}
  std::uint32_t operator()() {
    high_pending_ = !high_pending_;
    if (high_pending_) word_ = rng_();
    return static_cast<std::uint32_t>(high_pending_ ? word_ : word_ >> 32);
  }

 private:
  std::mt19937_64 rng_;
  std::uint64_t word_ = 0;
  bool high_pending_ = false;
};

// A uniform index in [0, n) by Lemire's multiply-shift with rejection (unbiased):
// floor(u n / 2^32) for a 32-bit u, redrawn while the low word of u n is below 2^32 mod n.
std::size_t uniform_index(RandomBits& bits, std::uint32_t n) {
  std::uint64_t product = std::uint64_t{bits()} * n;
  if (static_cast<std::uint32_t>(product) < n) {
    const std::uint32_t threshold = static_cast<std::uint32_t>(-n) % n;
    while (static_cast<std::uint32_t>(product) < threshold) product = std::uint64_t{bits()} * n;
  }
  return static_cast<std::size_t>(product >> 32);
}

// The median of n draws with replacement from `sorted`, without moving any data: count how
// often each index is drawn, then walk the cumulative counts to the order statistics
// lo = floor((n - 1) / 2) and hi = floor(n / 2) of the resample; median = (x_lo + x_hi) / 2
// (type 7 at q = 1/2). Same value as selecting in a scratch copy, in O(n) with a lighter constant.
double resampled_median(std::span<const double> sorted, RandomBits& bits, std::vector<std::uint32_t>& counts) {
  const std::size_t n = sorted.size();
  counts.assign(n, 0);
  for (std::size_t i = 0; i < n; ++i) ++counts[uniform_index(bits, static_cast<std::uint32_t>(n))];
  const std::size_t lo = (n - 1) / 2, hi = n / 2;
  std::size_t below = 0;  // draws at indices before j
  double low_value = 0;
  for (std::size_t j = 0;; below += counts[j++]) {
    if (below <= lo && lo < below + counts[j]) low_value = sorted[j];
    if (hi < below + counts[j]) return (low_value + sorted[j]) / 2;
  }
}

std::vector<double> sorted_copy(std::span<const double> samples) {
  std::vector<double> sorted(samples.begin(), samples.end());
  std::sort(sorted.begin(), sorted.end());
  return sorted;
}

// Percentile interval: the (1 - level)/2 and 1 - (1 - level)/2 quantiles of the bootstrap values.
ConfidenceInterval percentile_interval(std::vector<double>& values, double level) {
  std::sort(values.begin(), values.end());
  const double tail = (1 - level) / 2;
  return {.low = sorted_quantile(values, tail), .high = sorted_quantile(values, 1 - tail), .level = level};
}

}  // namespace

double quantile(std::span<const double> samples, double q) {
  require_samples(samples, "quantile");
  if (!(q >= 0 && q <= 1)) throw std::invalid_argument("quantile q must lie in [0, 1]");
  std::vector<double> scratch(samples.begin(), samples.end());
  return select_quantile(scratch, q);
}

// For even n, type 7 at q = 1/2 gives the mean of the two middle order statistics.
double median(std::span<const double> samples) { return quantile(samples, 0.5); }

// mean = x_0 + (1/n) sum (x_i - x_0): the same number, but exact for a constant and free of
// rounding in the offset when the spread is small next to it.
double mean(std::span<const double> samples) {
  require_samples(samples, "mean");
  const double x0 = samples.front();
  double deviations = 0;
  for (double x : samples) deviations += x - x0;
  return x0 + deviations / static_cast<double>(samples.size());
}

// s = sqrt(sum (x_i - mean)^2 / (n - 1)); two passes, so large offsets cost no precision.
double sample_stdev(std::span<const double> samples) {
  require_samples(samples, "standard deviation");
  if (samples.size() < 2) return 0;
  const double m = mean(samples);
  double squares = 0;
  for (double x : samples) squares += (x - m) * (x - m);
  return std::sqrt(squares / static_cast<double>(samples.size() - 1));
}

Summary summarize(std::span<const double> samples, double resolution) {
  require_samples(samples, "summary");
  const std::vector<double> sorted = sorted_copy(samples);
  Summary s;
  s.count = samples.size();
  s.mean = mean(samples);
  s.median = sorted_quantile(sorted, 0.5);
  s.stdev = sample_stdev(samples);
  s.relative_stdev = s.mean != 0 ? s.stdev / s.mean : 0;
  s.min = sorted.front();
  s.max = sorted.back();
  s.q1 = sorted_quantile(sorted, 0.25);
  s.q3 = sorted_quantile(sorted, 0.75);
  s.p10 = sorted_quantile(sorted, 0.10);
  s.p90 = sorted_quantile(sorted, 0.90);
  s.median_ci = widened_by_resolution(median_ci_from_sorted(sorted, s.median_ci.level), resolution);
  return s;
}

// Newton on f(z) = Phi(z) - p with Phi(z) = erfc(-z / sqrt 2) / 2 and f'(z) = phi(z); from
// z = 0 it converges monotonically (Phi is convex below 0 and concave above) in under 10 steps
// for p in [1e-6, 1 - 1e-6].
double normal_quantile(double p) {
  if (!(p > 0 && p < 1)) throw std::invalid_argument("normal quantile p must lie in (0, 1)");
  const double root_two = std::sqrt(2.0), root_two_pi = std::sqrt(2.0 * std::numbers::pi);
  double z = 0;
  for (int step = 0; step < 100; ++step) {
    const double error = 0.5 * std::erfc(-z / root_two) - p;
    const double next = z - error * root_two_pi * std::exp(z * z / 2);
    if (std::fabs(next - z) < 1e-12) return next;
    z = next;
  }
  return z;
}

OrderRanks median_ci_ranks(std::size_t n, double level) {
  if (n == 0) throw std::invalid_argument("median interval of no samples");
  require_level(level, 1);
  const double z = normal_quantile((1 + level) / 2);
  const double centre = (static_cast<double>(n) + 1) / 2, reach = z * std::sqrt(static_cast<double>(n)) / 2;
  const double low = std::max(1.0, std::floor(centre - reach));
  const double high = std::min(static_cast<double>(n), std::ceil(centre + reach));
  return {.low = static_cast<std::size_t>(low) - 1, .high = static_cast<std::size_t>(high) - 1};
}

ConfidenceInterval median_ci_from_sorted(std::span<const double> sorted, double level) {
  const OrderRanks ranks = median_ci_ranks(sorted.size(), level);
  return {.low = sorted[ranks.low], .high = sorted[ranks.high], .level = level};
}

ConfidenceInterval median_ci_from_order_statistics(std::span<const double> samples, double level) {
  require_samples(samples, "median interval");
  return median_ci_from_sorted(sorted_copy(samples), level);
}

ConfidenceInterval widened_by_resolution(ConfidenceInterval ci, double resolution) {
  ci.low -= resolution;
  ci.high += resolution;
  return ci;
}

// B resamples x*_1..x*_B, each n draws with replacement; the interval is the percentile
// interval of median(x*_1), ..., median(x*_B). O(B n): each median comes from counts, not a sort.
ConfidenceInterval bootstrap_median_ci(std::span<const double> samples, double level, int resamples,
                                       std::uint64_t seed) {
  require_resamplable(samples);
  require_level(level, resamples);
  const std::vector<double> sorted = sorted_copy(samples);
  RandomBits bits(seed);
  std::vector<std::uint32_t> counts;
  std::vector<double> medians(static_cast<std::size_t>(resamples));
  for (double& m : medians) m = resampled_median(sorted, bits, counts);
  return percentile_interval(medians, level);
}

// Each round resamples a and b independently: r* = median(b*) / median(a*); the interval is
// the percentile interval of r*_1..r*_B around the point estimate median(b) / median(a).
RatioEstimate bootstrap_median_ratio(std::span<const double> a, std::span<const double> b, double level,
                                     int resamples, std::uint64_t seed) {
  require_resamplable(a);
  require_resamplable(b);
  require_level(level, resamples);
  const std::vector<double> sorted_a = sorted_copy(a), sorted_b = sorted_copy(b);
  RandomBits bits(seed);
  std::vector<std::uint32_t> counts;
  std::vector<double> ratios(static_cast<std::size_t>(resamples));
  for (double& r : ratios) {
    const double median_a = resampled_median(sorted_a, bits, counts);
    r = resampled_median(sorted_b, bits, counts) / median_a;
  }
  return {.ratio = median(b) / median(a), .ci = percentile_interval(ratios, level)};
}

RatioEstimate ratio_widened_by_resolution(RatioEstimate estimate, double median_a, double resolution_a,
                                          double median_b, double resolution_b) {
  if (resolution_a <= 0 && resolution_b <= 0) return estimate;
  if (median_a <= resolution_a || median_b <= resolution_b) {
    estimate.ci.low = 0;
    estimate.ci.high = std::numeric_limits<double>::max();
    return estimate;
  }
  const double share_a = resolution_a / median_a, share_b = resolution_b / median_b;
  estimate.ci.low *= (1 - share_b) / (1 + share_a);
  estimate.ci.high *= (1 + share_b) / (1 - share_a);
  return estimate;
}

void to_json(nlohmann::json& out, const ConfidenceInterval& ci) {
  out = {{"low", ci.low}, {"high", ci.high}, {"level", ci.level}};
}

// Durations in seconds; relative_stdev as a fraction (1.0 = 100 %).
void to_json(nlohmann::json& out, const Summary& s) {
  out = {{"count", s.count},   {"mean", s.mean},
         {"median", s.median}, {"stdev", s.stdev},
         {"relative_stdev", s.relative_stdev},
         {"min", s.min},       {"max", s.max},
         {"q1", s.q1},         {"q3", s.q3},
         {"p10", s.p10},       {"p90", s.p90},
         {"median_ci", s.median_ci}};
}

}  // namespace kopt::measure
