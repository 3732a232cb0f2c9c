#include "kopt/measure/statistics.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <random>
#include <stdexcept>
#include <vector>

namespace kopt::measure {
namespace {

std::vector<double> normal_samples(std::size_t n, double mean, double stdev, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> noise(mean, stdev);
  std::vector<double> samples(n);
  for (double& x : samples) x = noise(rng);
  return samples;
}

// Expected values are numpy.quantile(x, q) (type 7): h = (n - 1) q, interpolated.
TEST(Quantile, OddCountMatchesNumpy) {
  const std::vector<double> x = {5, 3, 1, 4, 2};  // unsorted on purpose
  EXPECT_DOUBLE_EQ(quantile(x, 0.0), 1.0);
  EXPECT_DOUBLE_EQ(quantile(x, 0.1), 1.4);   // h = 0.4
  EXPECT_DOUBLE_EQ(quantile(x, 0.25), 2.0);  // h = 1
  EXPECT_DOUBLE_EQ(quantile(x, 0.33), 2.32); // h = 1.32
  EXPECT_DOUBLE_EQ(quantile(x, 0.5), 3.0);
  EXPECT_DOUBLE_EQ(quantile(x, 0.9), 4.6);   // h = 3.6
  EXPECT_DOUBLE_EQ(quantile(x, 1.0), 5.0);
}

TEST(Quantile, EvenCountMatchesNumpy) {
  const std::vector<double> x = {4, 1, 3, 2};
  EXPECT_DOUBLE_EQ(quantile(x, 0.0), 1.0);
  EXPECT_DOUBLE_EQ(quantile(x, 0.1), 1.3);   // h = 0.3
  EXPECT_DOUBLE_EQ(quantile(x, 0.25), 1.75); // h = 0.75
  EXPECT_DOUBLE_EQ(quantile(x, 0.5), 2.5);   // h = 1.5
  EXPECT_DOUBLE_EQ(quantile(x, 0.75), 3.25); // h = 2.25
  EXPECT_DOUBLE_EQ(quantile(x, 0.9), 3.7);   // h = 2.7
  EXPECT_DOUBLE_EQ(quantile(x, 1.0), 4.0);
}

TEST(Quantile, RejectsEmptyInputAndQOutsideUnitInterval) {
  const std::vector<double> none;
  const std::vector<double> one = {7};
  EXPECT_THROW(quantile(none, 0.5), std::invalid_argument);
  EXPECT_THROW(quantile(one, 1.5), std::invalid_argument);
  EXPECT_DOUBLE_EQ(quantile(one, 0.3), 7.0);
}

TEST(Statistics, MedianMeanAndStdevInClosedForm) {
  const std::vector<double> x = {2, 4, 4, 4, 5, 5, 7, 9};
  EXPECT_DOUBLE_EQ(mean(x), 5.0);
  EXPECT_DOUBLE_EQ(median(x), 4.5);
  // Squared deviations sum to 9+1+1+1+0+0+4+16 = 32; s = sqrt(32 / 7).
  EXPECT_DOUBLE_EQ(sample_stdev(x), std::sqrt(32.0 / 7.0));
  const std::vector<double> odd = {9, 1, 5};
  EXPECT_DOUBLE_EQ(median(odd), 5.0);
  const std::vector<double> one = {3};
  EXPECT_DOUBLE_EQ(sample_stdev(one), 0.0);
}

TEST(Statistics, EmptyInputThrows) {
  const std::vector<double> none;
  EXPECT_THROW(median(none), std::invalid_argument);
  EXPECT_THROW(mean(none), std::invalid_argument);
  EXPECT_THROW(sample_stdev(none), std::invalid_argument);
  EXPECT_THROW(summarize(none), std::invalid_argument);
  EXPECT_THROW(bootstrap_median_ci(none), std::invalid_argument);
  const std::vector<double> one = {1};
  EXPECT_THROW(bootstrap_median_ratio(one, none), std::invalid_argument);
  EXPECT_THROW(bootstrap_median_ratio(none, one), std::invalid_argument);
}

TEST(Statistics, SummaryOfAConstantCollapsesToTheValue) {
  const std::vector<double> x(50, 2e-3);
  const Summary s = summarize(x);
  EXPECT_EQ(s.count, 50u);
  EXPECT_EQ(s.stdev, 0.0);
  EXPECT_EQ(s.relative_stdev, 0.0);
  for (double v : {s.mean, s.median, s.min, s.max, s.q1, s.q3, s.p10, s.p90, s.median_ci.low, s.median_ci.high}) EXPECT_EQ(v, 2e-3);
  EXPECT_DOUBLE_EQ(s.median_ci.level, 0.95);
}

TEST(Statistics, SummaryQuartilesAndJson) {
  const std::vector<double> x = {1, 2, 3, 4, 5};
  const Summary s = summarize(x);
  EXPECT_DOUBLE_EQ(s.q1, 2.0);
  EXPECT_DOUBLE_EQ(s.q3, 4.0);
  EXPECT_DOUBLE_EQ(s.p10, 1.4);
  EXPECT_DOUBLE_EQ(s.p90, 4.6);
  EXPECT_DOUBLE_EQ(s.relative_stdev, std::sqrt(2.5) / 3);
  const nlohmann::json j = s;
  EXPECT_EQ(j.at("count"), 5);
  EXPECT_DOUBLE_EQ(j.at("median").get<double>(), 3.0);
  EXPECT_DOUBLE_EQ(j.at("relative_stdev").get<double>(), std::sqrt(2.5) / 3);
  EXPECT_DOUBLE_EQ(j.at("median_ci").at("level").get<double>(), 0.95);
  EXPECT_LE(j.at("median_ci").at("low").get<double>(), 3.0);
  for (const char* key : {"mean", "stdev", "min", "max", "q1", "q3", "p10", "p90"}) EXPECT_TRUE(j.contains(key)) << key;
}

TEST(Bootstrap, MedianCiCoversTheTrueMedianAndIsDeterministic) {
  const std::vector<double> x = normal_samples(10000, 1e-3, 1e-5, 42);
  const ConfidenceInterval ci = bootstrap_median_ci(x);
  EXPECT_LT(ci.low, 1e-3);
  EXPECT_GT(ci.high, 1e-3);
  // The median's standard error is about 1.2533 sigma / sqrt(n) = 1.25e-7.
  EXPECT_LT(ci.high - ci.low, 1e-6);
  const ConfidenceInterval again = bootstrap_median_ci(x);
  EXPECT_EQ(again.low, ci.low);
  EXPECT_EQ(again.high, ci.high);
  const ConfidenceInterval other_seed = bootstrap_median_ci(x, 0.95, 200, 7);
  EXPECT_NE(other_seed.low, ci.low);
}

// {1, 3} resamples to {1,1}, {1,3}, {3,1}, {3,3}: medians 1, 2, 2, 3 with chances 1/4, 1/2, 1/4,
// so the central 20 % of the bootstrap medians is 2, the mean of the two middle values.
TEST(Bootstrap, EvenResampleMedianAveragesTheMiddlePair) {
  const std::vector<double> x = {1, 3};
  const ConfidenceInterval ci = bootstrap_median_ci(x, 0.2);
  EXPECT_DOUBLE_EQ(ci.low, 2.0);
  EXPECT_DOUBLE_EQ(ci.high, 2.0);
  const ConfidenceInterval wide = bootstrap_median_ci(x, 0.9);
  EXPECT_DOUBLE_EQ(wide.low, 1.0);
  EXPECT_DOUBLE_EQ(wide.high, 3.0);
}

TEST(Bootstrap, RatioOfATwoPercentFasterVariantExcludesOne) {
  const std::vector<double> a = normal_samples(200, 1e-3, 3e-6, 1);
  const std::vector<double> noise = normal_samples(200, 0, 1e-6, 2);
  std::vector<double> b(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) b[i] = 0.98 * a[i] + noise[i];
  const RatioEstimate r = bootstrap_median_ratio(a, b);
  EXPECT_NEAR(r.ratio, 0.98, 1e-3);
  EXPECT_LT(r.ci.high, 1.0);
  EXPECT_LT(r.ci.low, r.ratio);
  EXPECT_GT(r.ci.high, r.ratio);
  const RatioEstimate self = bootstrap_median_ratio(a, a);
  EXPECT_DOUBLE_EQ(self.ratio, 1.0);
  EXPECT_LT(self.ci.low, 1.0);
  EXPECT_GT(self.ci.high, 1.0);
}

TEST(Bootstrap, RejectsLevelsOutsideTheUnitInterval) {
  const std::vector<double> x = {1, 2, 3};
  EXPECT_THROW(bootstrap_median_ci(x, 1.0), std::invalid_argument);
  EXPECT_THROW(bootstrap_median_ci(x, 0.95, 0), std::invalid_argument);
}


// --- The order-statistic interval of the median, and the timer's resolution.

TEST(MedianInterval, RanksAreConovers) {
  // n = 10: (11 / 2) -+ 1.96 sqrt(10) / 2 = 2.40, 8.60 -> [x_(2), x_(9)], 0-based 1 and 8.
  EXPECT_EQ(median_ci_ranks(10).low, 1u);
  EXPECT_EQ(median_ci_ranks(10).high, 8u);
  // n = 100: 50.5 -+ 9.8 -> [x_(40), x_(61)].
  EXPECT_EQ(median_ci_ranks(100).low, 39u);
  EXPECT_EQ(median_ci_ranks(100).high, 60u);
  // Too few samples for 95 %: the whole range.
  EXPECT_EQ(median_ci_ranks(3).low, 0u);
  EXPECT_EQ(median_ci_ranks(3).high, 2u);
  EXPECT_EQ(median_ci_ranks(1).high, 0u);
  EXPECT_THROW(median_ci_ranks(0), std::invalid_argument);
}

TEST(MedianInterval, NormalQuantileIsPhiInverse) {
  EXPECT_NEAR(normal_quantile(0.975), 1.959963984540054, 1e-9);
  EXPECT_NEAR(normal_quantile(0.5), 0.0, 1e-12);
  EXPECT_NEAR(normal_quantile(0.995), 2.5758293035489, 1e-9);
  EXPECT_NEAR(normal_quantile(0.025), -1.959963984540054, 1e-9);
  EXPECT_THROW(normal_quantile(1.0), std::invalid_argument);
}

TEST(MedianInterval, IsTheOrderStatisticsOfUnsortedSamples) {
  const std::vector<double> x = {7, 3, 9, 1, 5, 2, 10, 4, 8, 6};
  const ConfidenceInterval ci = median_ci_from_order_statistics(x);
  EXPECT_DOUBLE_EQ(ci.low, 2);
  EXPECT_DOUBLE_EQ(ci.high, 9);
  EXPECT_DOUBLE_EQ(ci.level, 0.95);
}

// Distribution-free: at least 95 % of intervals hold the true median, for skewed samples too.
TEST(MedianInterval, CoversTheTrueMedianAtLeastNinetyFivePercentOfTheTime) {
  std::mt19937_64 rng(11);
  std::exponential_distribution<double> skewed(1.0);
  const double true_median = std::log(2.0);
  for (std::size_t n : {10u, 25u, 60u, 400u}) {
    int covered = 0;
    const int trials = 4000;
    for (int t = 0; t < trials; ++t) {
      std::vector<double> x(n);
      for (double& v : x) v = skewed(rng);
      const ConfidenceInterval ci = median_ci_from_order_statistics(x);
      covered += ci.low <= true_median && true_median <= ci.high;
    }
    EXPECT_GE(covered, static_cast<int>(0.94 * trials)) << "n = " << n;  // 0.95 less sampling error
  }
}

// Issue 17: "CI [1.0245, 1.0245]" from times that all read the same tick.
TEST(MedianInterval, QuantisedTimesAreNeverGivenAZeroWidthInterval) {
  const std::vector<double> x(50, 2.048e-6);
  const Summary exact = summarize(x);
  EXPECT_EQ(exact.median_ci.low, exact.median_ci.high);
  const Summary ticked = summarize(x, 32e-9);
  EXPECT_DOUBLE_EQ(ticked.median, 2.048e-6);
  EXPECT_DOUBLE_EQ(ticked.median_ci.low, 2.016e-6);
  EXPECT_DOUBLE_EQ(ticked.median_ci.high, 2.080e-6);
  EXPECT_GE(ticked.median_ci.high - ticked.median_ci.low, 2 * 32e-9 * (1 - 1e-12));
}

TEST(MedianInterval, WideningMovesEachEndByOneTick) {
  const ConfidenceInterval ci = widened_by_resolution({.low = 1.0, .high = 2.0, .level = 0.9}, 0.25);
  EXPECT_DOUBLE_EQ(ci.low, 0.75);
  EXPECT_DOUBLE_EQ(ci.high, 2.25);
  EXPECT_DOUBLE_EQ(ci.level, 0.9);
}

// The two medians of issue 17's A/A, 1312 and 1344 ns, one tick apart: the ratio's interval,
// [1.0244, 1.0244] from the bootstrap, now reaches below 1.
TEST(MedianInterval, ARatioOfMediansOneTickApartIsNotSignificant) {
  const std::vector<double> a(40, 1.312e-6), b(40, 1.344e-6);
  const RatioEstimate bare = bootstrap_median_ratio(a, b);
  EXPECT_DOUBLE_EQ(bare.ci.low, bare.ci.high);
  const RatioEstimate widened = ratio_widened_by_resolution(bare, 1.312e-6, 32e-9, 1.344e-6, 32e-9);
  EXPECT_DOUBLE_EQ(widened.ratio, bare.ratio);
  EXPECT_LT(widened.ci.low, 1.0);
  EXPECT_GT(widened.ci.high, 1.04);
  // low = r (1 - 32/1344) / (1 + 32/1312), high = r (1 + 32/1344) / (1 - 32/1312).
  EXPECT_NEAR(widened.ci.low, (1.344 / 1.312) * (1 - 32.0 / 1344) / (1 + 32.0 / 1312), 1e-12);
  EXPECT_NEAR(widened.ci.high, (1.344 / 1.312) * (1 + 32.0 / 1344) / (1 - 32.0 / 1312), 1e-12);
  // Exact times are left alone; a median within a tick of zero gives no bound.
  EXPECT_DOUBLE_EQ(ratio_widened_by_resolution(bare, 1.312e-6, 0, 1.344e-6, 0).ci.low, bare.ci.low);
  EXPECT_EQ(ratio_widened_by_resolution(bare, 20e-9, 32e-9, 1.344e-6, 32e-9).ci.low, 0.0);
}

}  // namespace
}  // namespace kopt::measure
