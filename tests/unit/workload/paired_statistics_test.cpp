#include "kopt/workload/paired_statistics.hpp"

#include <gtest/gtest.h>

namespace kopt::workload {
namespace {

std::vector<double> scaled(const std::vector<double>& values, double factor) {
  std::vector<double> out;
  for (double v : values) out.push_back(v * factor);
  return out;
}

const std::vector<double> kOriginal = {10.0, 10.1, 9.9, 10.05, 9.95, 10.02, 10.08, 9.97};

TEST(PairedVerdict, AClearGainIsBetterWithItsInterval) {
  const PairedVerdict v = paired_verdict(kOriginal, scaled(kOriginal, 0.9), Direction::lower, 0.02, 0.95);
  EXPECT_EQ(v.verdict, "better");
  EXPECT_NEAR(v.median_ratio, 0.9, 1e-12);
  EXPECT_NEAR(v.gain(), 1 / 0.9, 1e-12);
  EXPECT_EQ(v.rounds, 8u);
  EXPECT_EQ(v.rounds_better, 8u);
}

TEST(PairedVerdict, AHigherIsBetterMetricIsOrientedTheSameWay) {
  // Throughput 10 % higher is better: its cost ratio is original / candidate.
  const PairedVerdict v = paired_verdict(kOriginal, scaled(kOriginal, 1.1), Direction::higher, 0.02, 0.95);
  EXPECT_EQ(v.verdict, "better");
  EXPECT_NEAR(v.median_ratio, 1 / 1.1, 1e-12);
}

TEST(PairedVerdict, SameWorseAndAmbiguousAtTheirBoundaries) {
  std::vector<double> candidate = {10.0, 10.1, 9.9, 10.05, 9.95, 10.02};
  std::vector<double> original(candidate);
  original[0] *= 1.001;
  original[3] /= 1.001;
  EXPECT_EQ(paired_verdict(original, candidate, Direction::lower, 0.02, 0.95).verdict, "same");
  EXPECT_EQ(paired_verdict(kOriginal, scaled(kOriginal, 1.05), Direction::lower, 0.02, 0.95).verdict, "worse");
  // Below the minimum effect, however consistent: not "better".
  EXPECT_EQ(paired_verdict(kOriginal, scaled(kOriginal, 0.99), Direction::lower, 0.02, 0.95).verdict, "same");
  // 1.5 % faster against a 1 % effect, but one round in three the other way: the interval spans 1.
  std::vector<double> mixed = scaled(kOriginal, 0.985);
  mixed[1] = kOriginal[1] * 1.02;
  mixed[4] = kOriginal[4] * 1.03;
  EXPECT_EQ(paired_verdict(kOriginal, mixed, Direction::lower, 0.01, 0.95).verdict, "ambiguous");
  // Four rounds say nothing, whatever their numbers.
  const std::vector<double> four = {10, 10, 10, 10}, halves = {5, 5, 5, 5};
  EXPECT_EQ(paired_verdict(four, halves, Direction::lower, 0.02, 0.95).verdict, "ambiguous");
}

TEST(ConstraintCheck, KeptBrokenAndUnproven) {
  EXPECT_EQ(check_constraint("p99", 0.05, kOriginal, scaled(kOriginal, 1.02), Direction::lower, 0.95).status, "kept");
  EXPECT_EQ(check_constraint("p99", 0.05, kOriginal, scaled(kOriginal, 1.2), Direction::lower, 0.95).status, "broken");
  std::vector<double> straddling = scaled(kOriginal, 1.03);
  straddling[2] = kOriginal[2] * 1.09;
  straddling[5] = kOriginal[5] * 1.08;
  straddling[7] = kOriginal[7] * 1.07;
  EXPECT_EQ(check_constraint("p99", 0.05, kOriginal, straddling, Direction::lower, 0.95).status, "unproven");
}

TEST(Drift, ALinearTrendIsFoundAndNoiseIsNot) {
  std::vector<double> drifting;
  for (int i = 0; i < 20; ++i) drifting.push_back(10 * (1 + 0.002 * i) + (i % 3 == 0 ? 0.01 : -0.01));
  const Drift d = drift_of(drifting, 0.02);
  EXPECT_TRUE(d.significant);
  EXPECT_NEAR(d.slope_per_run, 0.002, 0.0005);
  EXPECT_GT(d.kendall_tau, 0.8);
  const Drift flat = drift_of(kOriginal, 0.02);
  EXPECT_FALSE(flat.significant);
  EXPECT_GT(flat.p_value, 0.05);
}

TEST(Resolution, HalfWidthOfTheMediansInterval) {
  const std::vector<double> runs = {10, 11, 9, 10, 10.5};
  const Resolution r = resolution_of(runs, 0.95);
  EXPECT_DOUBLE_EQ(r.median, 10);
  EXPECT_EQ(r.runs, 5u);
  // Five runs: the interval is [min, max] = [9, 11], ±10 %.
  EXPECT_NEAR(r.half_width, 0.1, 1e-12);
  EXPECT_NEAR(r.relative_mad, 0.05, 1e-12);
}

}  // namespace
}  // namespace kopt::workload
