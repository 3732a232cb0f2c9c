#include "kopt/measure/verdict.hpp"

#include <gtest/gtest.h>

#include <random>
#include <vector>

namespace kopt::measure {
namespace {

// Kernel times of 1 ms scaled by `scale`, with `relative_noise` normal noise.
std::vector<double> timings(double scale, double relative_noise, std::uint64_t seed, std::size_t n = 200) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> noise(1.0, relative_noise);
  std::vector<double> samples(n);
  for (double& x : samples) x = 1e-3 * scale * noise(rng);
  return samples;
}

TEST(Verdict, TwoPercentFasterIsFaster) {
  const Comparison c = compare_samples(timings(1.0, 0.003, 1), timings(0.98, 0.003, 2));
  EXPECT_EQ(c.verdict, Verdict::faster);
  EXPECT_NEAR(c.ratio.ratio, 0.98, 2e-3);
  EXPECT_NEAR(c.speedup, 1 / 0.98, 2e-3);
  EXPECT_LT(c.ratio.ci.high, 0.99);
  EXPECT_DOUBLE_EQ(c.min_effect, 0.01);
}

TEST(Verdict, TwoPercentSlowerIsSlower) {
  const Comparison c = compare_samples(timings(1.0, 0.003, 3), timings(1.02, 0.003, 4));
  EXPECT_EQ(c.verdict, Verdict::slower);
  EXPECT_GT(c.ratio.ci.low, 1.01);
  EXPECT_LT(c.speedup, 1.0);
}

TEST(Verdict, SameDistributionIsRarelyCalledFasterOrSlower) {
  int called = 0, same = 0;
  for (std::uint64_t seed = 0; seed < 50; ++seed) {
    const Verdict v = compare_samples(timings(1.0, 0.003, 2 * seed + 100), timings(1.0, 0.003, 2 * seed + 101)).verdict;
    called += v == Verdict::faster || v == Verdict::slower;
    same += v == Verdict::same;
  }
  EXPECT_LE(called, 2);
  EXPECT_GE(same, 45);
}

// A real effect smaller than min_effect is not worth a call: 0.3 % faster, 1 % threshold.
TEST(Verdict, EffectBelowTheThresholdIsSame) {
  const Comparison c = compare_samples(timings(1.0, 0.003, 5), timings(0.997, 0.003, 6));
  EXPECT_LT(c.ratio.ci.high, 1.0);
  EXPECT_EQ(c.verdict, Verdict::same);
}

TEST(Verdict, TooFewSamplesAreAmbiguous) {
  const Comparison c = compare_samples(timings(1.0, 0.003, 7, 3), timings(0.9, 0.003, 8, 3));
  EXPECT_EQ(c.verdict, Verdict::ambiguous);
  EXPECT_NEAR(c.ratio.ratio, 0.9, 0.01);  // the estimate is still reported
  EXPECT_EQ(compare_samples({}, timings(1.0, 0.003, 9)).verdict, Verdict::ambiguous);
}

TEST(Verdict, HugeNoiseIsAmbiguous) {
  const Comparison c = compare_samples(timings(1.0, 0.3, 10), timings(0.98, 0.3, 11));
  EXPECT_EQ(c.verdict, Verdict::ambiguous);
  EXPECT_LT(c.ratio.ci.low, 0.99);
  EXPECT_GT(c.ratio.ci.high, 1.0);
}

TEST(Verdict, AnIntervalPastEitherEdgeOfTheThresholdIsNotTheSame) {
  // B's median is A's (ratio 1), but its bootstrap interval reaches 1.03 (or 0.97): inside
  // 1 ± 1 % on one side only, which is not "the same", and the estimate is not past the
  // threshold, which is not "slower" (or "faster") either.
  const std::vector<double> a(11, 1e-3);
  std::vector<double> up(6, 1e-3), down(6, 1e-3);
  up.insert(up.end(), 5, 1.03e-3);
  down.insert(down.end(), 5, 0.97e-3);
  const Comparison high = compare_samples(a, up);
  EXPECT_DOUBLE_EQ(high.ratio.ratio, 1.0);
  EXPECT_GE(high.ratio.ci.low, 0.99);
  EXPECT_GT(high.ratio.ci.high, 1.01);
  EXPECT_EQ(high.verdict, Verdict::ambiguous);
  const Comparison low = compare_samples(a, down);
  EXPECT_LT(low.ratio.ci.low, 0.99);
  EXPECT_LE(low.ratio.ci.high, 1.01);
  EXPECT_EQ(low.verdict, Verdict::ambiguous);
}

TEST(Verdict, ThresholdAndSettingsAreHonoured) {
  ComparisonSettings settings{.min_effect = 0.05};
  const Comparison c = compare_samples(timings(1.0, 0.003, 12), timings(0.98, 0.003, 13), settings);
  EXPECT_EQ(c.verdict, Verdict::same);  // 2 % is inside a 5 % threshold
  EXPECT_DOUBLE_EQ(c.min_effect, 0.05);
  settings = {.min_samples = 500};
  EXPECT_EQ(compare_samples(timings(1.0, 0.003, 12), timings(0.98, 0.003, 13), settings).verdict, Verdict::ambiguous);
}

TEST(Verdict, Names) {
  EXPECT_EQ(verdict_name(Verdict::faster), "faster");
  EXPECT_EQ(verdict_name(Verdict::slower), "slower");
  EXPECT_EQ(verdict_name(Verdict::same), "same");
  EXPECT_EQ(verdict_name(Verdict::ambiguous), "ambiguous");
}


// Issue 17's A/A on a 2 µs kernel: times quantised to a 32 ns tick, the two medians one tick
// apart, "slower x1.0245, CI [1.0245, 1.0245]". With the tick given, not significant.
TEST(Verdict, MediansOneTickApartAreNotCalledSlower) {
  std::vector<double> a(200, 1.312e-6), b(200, 1.344e-6);
  for (std::size_t i = 0; i < a.size(); i += 5) a[i] = 1.344e-6;  // a little jitter, still one tick
  EXPECT_EQ(compare_samples(a, b).verdict, Verdict::slower);  // what kopt said before
  const Comparison c = compare_samples(a, b, {}, {.a = 32e-9, .b = 32e-9});
  EXPECT_EQ(c.verdict, Verdict::ambiguous);
  EXPECT_LT(c.ratio.ci.low, 1.0);
}

// A 2 % difference on a 200 µs kernel: the tick is 0.016 % of it and changes nothing.
TEST(Verdict, AFineTickLeavesARealDifferenceFound) {
  const std::vector<double> a = timings(0.2, 0.005, 1), b = timings(0.2 * 1.02, 0.005, 2);
  const Comparison c = compare_samples(a, b, {}, {.a = 32e-9, .b = 32e-9});
  EXPECT_EQ(c.verdict, Verdict::slower);
}

// Each boundary of judge_ratio, at e = 1 %: a rule moved by any amount (the "same" band widened
// to twice the minimum effect, a strict bound made inclusive) fails one of these.
RatioEstimate estimate(double ratio, double low, double high) { return {.ratio = ratio, .ci = {.low = low, .high = high}}; }

TEST(VerdictBoundary, FasterNeedsTheWholeIntervalBelowOneAndTheEstimatePastTheEffect) {
  EXPECT_EQ(judge_ratio(estimate(0.985, 0.98, 0.999), 0.01), Verdict::faster);
  EXPECT_EQ(judge_ratio(estimate(0.985, 0.98, 1.0), 0.01), Verdict::ambiguous);      // interval reaches 1
  EXPECT_EQ(judge_ratio(estimate(0.99, 0.985, 0.995), 0.01), Verdict::ambiguous);    // estimate at 1 - e, not past it
  EXPECT_EQ(judge_ratio(estimate(0.9899, 0.985, 0.995), 0.01), Verdict::faster);     // just past it
}

TEST(VerdictBoundary, SlowerNeedsTheWholeIntervalAboveOneAndTheEstimatePastTheEffect) {
  EXPECT_EQ(judge_ratio(estimate(1.015, 1.001, 1.02), 0.01), Verdict::slower);
  EXPECT_EQ(judge_ratio(estimate(1.015, 1.0, 1.02), 0.01), Verdict::ambiguous);      // interval reaches 1
  EXPECT_EQ(judge_ratio(estimate(1.01, 1.005, 1.015), 0.01), Verdict::ambiguous);    // estimate at 1 + e
  EXPECT_EQ(judge_ratio(estimate(1.0101, 1.005, 1.015), 0.01), Verdict::slower);
}

TEST(VerdictBoundary, SameNeedsTheIntervalInsideOnePlusOrMinusTheEffect) {
  EXPECT_EQ(judge_ratio(estimate(1.0, 0.99, 1.01), 0.01), Verdict::same);            // the edges themselves
  EXPECT_EQ(judge_ratio(estimate(1.0, 0.9899, 1.0), 0.01), Verdict::ambiguous);      // just below the band
  EXPECT_EQ(judge_ratio(estimate(1.0, 1.0, 1.0101), 0.01), Verdict::ambiguous);      // just above it
  // Inside twice the effect but not inside the effect: not the same.
  EXPECT_EQ(judge_ratio(estimate(1.0, 0.985, 1.0), 0.01), Verdict::ambiguous);
  EXPECT_EQ(judge_ratio(estimate(1.0, 1.0, 1.015), 0.01), Verdict::ambiguous);
  EXPECT_EQ(judge_ratio(estimate(1.0, 0.981, 1.019), 0.01), Verdict::ambiguous);
}

TEST(VerdictBoundary, TheBandScalesWithTheMinimumEffect) {
  EXPECT_EQ(judge_ratio(estimate(1.0, 0.985, 1.015), 0.02), Verdict::same);
  EXPECT_EQ(judge_ratio(estimate(1.0, 0.985, 1.015), 0.01), Verdict::ambiguous);
  EXPECT_EQ(judge_ratio(estimate(0.985, 0.98, 0.99), 0.02), Verdict::same);   // 1.5 % faster: below a 2 % effect
  EXPECT_EQ(judge_ratio(estimate(0.985, 0.98, 0.99), 0.01), Verdict::faster);
}

// compare_samples applies these rules with its settings' effect: 1.5 % faster, tight noise.
TEST(VerdictBoundary, CompareSamplesJudgesWithItsMinimumEffect) {
  const std::vector<double> a = timings(1.0, 0.001, 21), b = timings(0.985, 0.001, 22);
  EXPECT_EQ(compare_samples(a, b, {.min_effect = 0.01}).verdict, Verdict::faster);
  EXPECT_EQ(compare_samples(a, b, {.min_effect = 0.02}).verdict, Verdict::same);
}

}  // namespace
}  // namespace kopt::measure
