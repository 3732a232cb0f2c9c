#include "kopt/roofline/roofline.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "kopt/core/error.hpp"

namespace kopt::roofline {
namespace {

// H200 datasheet ceilings: ridge at 67e12 / 4.8e12 ≈ 13.96 FLOP/byte.
RooflineInputs h200(double flop_per_second, double bytes_per_second) {
  return RooflineInputs{.achieved_flop_per_second = flop_per_second,
                        .achieved_bytes_per_second = bytes_per_second,
                        .peak_flop_per_second = 67e12,
                        .peak_bytes_per_second = 4.8e12,
                        .waves_per_sm = 10};
}

TEST(Roofline, ComputesIntensityAndRidgePoint) {
  RooflinePoint point = place_on_roofline(h200(1e12, 4e12));
  ASSERT_TRUE(point.arithmetic_intensity);
  EXPECT_DOUBLE_EQ(*point.arithmetic_intensity, 0.25);
  EXPECT_DOUBLE_EQ(point.ridge_point, 67e12 / 4.8e12);
}

TEST(Roofline, HasNoIntensityWhenNoBytesMoved) {
  EXPECT_FALSE(place_on_roofline(h200(1e12, 0)).arithmetic_intensity);
}

TEST(Roofline, GapsAreOneMinusTheNearestCeilingsUtilization) {
  RooflineInputs in = h200(6.7e12, 2.4e12);  // 10 % of FP32, 50 % of DRAM
  in.sm_throughput = 0.30;                    // a busier pipe than FP32: the nearer compute ceiling
  in.memory_throughput = 0.20;                // DRAM is the nearer memory ceiling
  in.largest_stall_share = 0.45;
  RooflinePoint point = place_on_roofline(in);
  EXPECT_DOUBLE_EQ(point.gaps.compute, 0.70);
  EXPECT_DOUBLE_EQ(point.gaps.memory, 0.50);
  EXPECT_DOUBLE_EQ(point.gaps.latency, 0.45);
}

TEST(Roofline, ClampsUtilizationAboveTheCeilingToAZeroGap) {
  RooflinePoint point = place_on_roofline(h200(70e12, 5e12));  // over the datasheet peaks
  EXPECT_DOUBLE_EQ(point.gaps.compute, 0);
  EXPECT_DOUBLE_EQ(point.gaps.memory, 0);
}

TEST(Roofline, RejectsAPeakThatIsNotPositive) {
  RooflineInputs in = h200(1, 1);
  in.peak_bytes_per_second = 0;
  EXPECT_THROW(place_on_roofline(in), Error);
}

TEST(RooflineBound, EightyPercentOnOneSideIsHighThroughputBound) {
  RooflinePoint point = place_on_roofline(h200(0, 0.81 * 4.8e12));
  EXPECT_EQ(point.bound, Bound::memory);
  EXPECT_TRUE(point.high_throughput);
  EXPECT_EQ(classify_bound(0.85, 0.30, 10), Bound::compute);
}

TEST(RooflineBound, ExactlyEightyPercentIsHighThroughput) {
  RooflineInputs inputs = h200(0, 0);
  inputs.memory_throughput = kHighThroughput;
  EXPECT_TRUE(place_on_roofline(inputs).high_throughput);
  inputs.memory_throughput = std::nextafter(kHighThroughput, 0.0);
  EXPECT_FALSE(place_on_roofline(inputs).high_throughput);
}

TEST(RooflineBound, BothUnderSixtyPercentIsLatencyBound) {
  EXPECT_EQ(classify_bound(0.59, 0.59, 10), Bound::latency);
  RooflinePoint point = place_on_roofline(h200(0.5 * 67e12, 0.5 * 4.8e12));
  EXPECT_EQ(point.bound, Bound::latency);
  EXPECT_FALSE(point.high_throughput);
}

TEST(RooflineBound, BothUnderSixtyPercentWithLessThanOneWaveIsASmallGrid) {
  EXPECT_EQ(classify_bound(0.10, 0.20, 0.5), Bound::small_grid);
  EXPECT_EQ(classify_bound(0.10, 0.20, 1.0), Bound::latency);
  EXPECT_EQ(classify_bound(0.70, 0.20, 0.5), Bound::compute);  // busy despite the small grid
}

TEST(RooflineBound, BetweenSixtyAndEightyTheLargerSideBinds) {
  EXPECT_EQ(classify_bound(0.65, 0.70, 10), Bound::memory);
  EXPECT_EQ(classify_bound(0.75, 0.30, 10), Bound::compute);
  RooflinePoint point = place_on_roofline(h200(0.7 * 67e12, 0));
  EXPECT_EQ(point.bound, Bound::compute);
  EXPECT_FALSE(point.high_throughput);
}

TEST(RooflineBound, EqualSidesAreNamedTogether) {
  EXPECT_EQ(classify_bound(0.70, 0.70, 10), Bound::compute_and_memory);
  EXPECT_EQ(classify_bound(0.90, 0.90, 10), Bound::compute_and_memory);
  EXPECT_EQ(classify_bound(0.60, 0.60, 10), Bound::compute_and_memory);  // 60 % is not "under 60 %"
}

TEST(RooflineNearPeak, NeedsEveryGapUnderFifteenHundredths) {
  RooflineInputs in = h200(0.9 * 67e12, 0.9 * 4.8e12);
  in.largest_stall_share = 0.14;
  EXPECT_TRUE(place_on_roofline(in).near_peak);
  in.largest_stall_share = 0.15;
  EXPECT_FALSE(place_on_roofline(in).near_peak);
}

AxisBudget budget(double compute, double memory, double latency) {
  return split_axis_budget(Gaps{.compute = compute, .memory = memory, .latency = latency});
}

TEST(AxisBudget, SplitsThreeMethodsInProportionToTheGaps) {
  // Quotas 1.5, 1.0, 0.5: whole parts 1, 1, 0; the one left goes to the larger remainder.
  AxisBudget split = budget(0.6, 0.4, 0.2);
  EXPECT_EQ(split.of(Axis::compute), 2);
  EXPECT_EQ(split.of(Axis::memory), 1);
  EXPECT_EQ(split.of(Axis::latency), 0);
}

TEST(AxisBudget, EqualGapsGetOneEach) {
  AxisBudget split = budget(0.5, 0.5, 0.5);
  EXPECT_EQ(split.methods, (std::array<int, 3>{1, 1, 1}));
}

TEST(AxisBudget, TiedRemaindersGoToTheLargerGapThenInAxisOrder) {
  // Two equal eligible gaps: quotas 1.5 each; the third method goes to compute by order.
  EXPECT_EQ(budget(0.4, 0.05, 0.4).methods, (std::array<int, 3>{2, 0, 1}));
  EXPECT_EQ(budget(0.05, 0.4, 0.4).methods, (std::array<int, 3>{0, 2, 1}));
}

TEST(AxisBudget, OneHugeGapGetsAtMostTwoAndTheRestGoesElsewhere) {
  // Quotas 2.45, 0.27, 0.27: compute is capped at its whole part 2; memory wins the tie.
  EXPECT_EQ(budget(0.9, 0.1, 0.1).methods, (std::array<int, 3>{2, 1, 0}));
  EXPECT_EQ(budget(0.9, 0.1, 0.12).methods, (std::array<int, 3>{2, 0, 1}));
}

TEST(AxisBudget, AnAxisUnderTenHundredthsGetsNothing) {
  EXPECT_EQ(budget(0.9, 0.09, 0.02).methods, (std::array<int, 3>{2, 0, 0}));  // one axis: 2, not 3
  EXPECT_EQ(budget(0.3, 0.0999, 0.3).methods, (std::array<int, 3>{2, 0, 1}));
}

TEST(AxisBudget, AllSmallGapsGiveNoBudget) {
  AxisBudget split = budget(0.09, 0.05, 0.0);
  EXPECT_EQ(split.total(), 0);
}

TEST(AxisBudget, NeverExceedsThreeOrTwoPerAxis) {
  for (double c : {0.0, 0.1, 0.33, 0.5, 0.97})
    for (double m : {0.0, 0.12, 0.5, 0.8})
      for (double l : {0.0, 0.1, 0.2, 0.66, 1.0}) {
        AxisBudget split = budget(c, m, l);
        EXPECT_LE(split.total(), 3);
        for (Axis axis : kAxes) EXPECT_LE(split.of(axis), 2);
        int eligible = (c >= 0.1) + (m >= 0.1) + (l >= 0.1);
        EXPECT_EQ(split.total(), std::min(3, 2 * eligible)) << c << " " << m << " " << l;
      }
}

// The tuned vector add on the H200 moved 4.311 TB/s against a measured copy ceiling of
// 4.236 TB/s: its utilization reads 1, and only above_ceiling keeps the 101.8 %.
TEST(AboveCeiling, KeepsTheRatioThatTheUtilizationClamps) {
  const RooflinePoint point = place_on_roofline(h200(3.67e11, 4.311e12 / 4.236e12 * 4.8e12));
  EXPECT_DOUBLE_EQ(point.memory_utilization, 1.0);
  EXPECT_DOUBLE_EQ(point.gaps.memory, 0.0);
  ASSERT_TRUE(above_ceiling(4.311e12, 4.236e12).has_value());
  EXPECT_NEAR(*above_ceiling(4.311e12, 4.236e12), 1.0177, 1e-4);
}

TEST(AboveCeiling, RoundingAndUnknownPeaksAreNotAboveIt) {
  EXPECT_FALSE(above_ceiling(4.236e12, 4.236e12).has_value());
  EXPECT_FALSE(above_ceiling(1.004 * 4.236e12, 4.236e12).has_value());  // within the margin
  EXPECT_TRUE(above_ceiling(1.006 * 4.236e12, 4.236e12).has_value());
  EXPECT_FALSE(above_ceiling(1e12, 0).has_value());
  EXPECT_FALSE(above_ceiling(std::numeric_limits<double>::infinity(), 1e12).has_value());
}

}  // namespace
}  // namespace kopt::roofline
