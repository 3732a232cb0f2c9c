#include "kopt/roofline/roofline_analysis.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "kopt/core/error.hpp"
#include "kopt/core/files.hpp"
#include "kopt/profile/ncu_csv.hpp"

namespace kopt::roofline {
namespace {

using ::testing::HasSubstr;

profile::WholeCall fixture_whole(const std::string& kernel, const profile::MetricMap& map) {
  const profile::NcuReport report = profile::parse_ncu_raw_csv(
      read_file(std::string(KOPT_FIXTURES_DIR) + "/ncu/ncu2025.3.1_h200_sm90_raw_" + kernel + ".csv"));
  return profile::aggregate_launches(map, {profile::launch_concepts(map, report.launches.at(0))});
}

class RooflineAnalysisTest : public ::testing::Test {
 protected:
  profile::MetricMap map = *profile::load_metric_map("2025.3.1", "sm_90");
  measure::DevicePeaks h200 = *measure::datasheet_peaks("NVIDIA H200");
  const spec::PrecisionPolicy& fp32 = spec::precision_named("fp32");
};

// The fixture's vector add moves 3.36 TB/s: 70 % of the H200's datasheet 4.8 TB/s, while the
// SM is 41 % busy issuing its loads and stores.
TEST_F(RooflineAnalysisTest, VectorAddIsMemoryBound) {
  const RooflineAnalysis a = roofline_from_profile(fixture_whole("vector_add", map), map, h200, fp32, 0);
  EXPECT_EQ(a.point.bound, Bound::memory);
  EXPECT_EQ(a.compute_ceiling, "fp32");
  EXPECT_NEAR(a.point.memory_utilization, 0.70, 0.01);
  EXPECT_NEAR(a.point.gaps.compute, 0.59, 0.01);
  EXPECT_GT(a.point.gaps.compute, a.point.gaps.memory);
  EXPECT_EQ(a.sources.flop_peak, PeaksSource::datasheet);
  EXPECT_EQ(a.sources.bytes_peak, PeaksSource::datasheet);
  EXPECT_FALSE(a.degraded);
}

// kopt optimize's vector add (float4, 4 vectors per thread, grid-stride; sixth session) moved
// 4.31 TB/s by the counters, above the 4.236 TB/s that kopt doctor --peaks's copy measured on
// that card; the naive one's counters (an earlier card) read 79 % of the same ceiling.
TEST_F(RooflineAnalysisTest, TheTunedVectorAddBeatsTheMeasuredCopyCeiling) {
  const measure::DevicePeaks measured{.name = "NVIDIA H200", .source = "measured", .dram_bytes_per_second = 4.236e12,
                                      .flops = {{"fp32", 63.72e12}}, .measured = {"dram", "fp32"}};
  const RooflineAnalysis tuned = roofline_from_profile(fixture_whole("vector_add_tuned", map), map, measured, fp32, 0);
  EXPECT_EQ(tuned.point.bound, Bound::memory);
  EXPECT_DOUBLE_EQ(tuned.point.memory_utilization, 1.0);
  ASSERT_TRUE(above_ceiling(tuned.inputs.achieved_bytes_per_second, measured.dram_bytes_per_second).has_value());
  EXPECT_NEAR(*above_ceiling(tuned.inputs.achieved_bytes_per_second, measured.dram_bytes_per_second), 1.018, 0.001);

  const RooflineAnalysis naive = roofline_from_profile(fixture_whole("vector_add", map), map, measured, fp32, 0);
  EXPECT_EQ(naive.point.bound, Bound::memory);
  EXPECT_NEAR(naive.point.memory_utilization, 0.79, 0.005);
  EXPECT_FALSE(above_ceiling(naive.inputs.achieved_bytes_per_second, measured.dram_bytes_per_second).has_value());
}

TEST_F(RooflineAnalysisTest, NaiveSgemmIsHeldAgainstFp32NotTensorCores) {
  measure::DevicePeaks peaks = h200;
  peaks.measured = {"fp32"};  // the FP32 rate measured, DRAM still the datasheet's
  const RooflineAnalysis a = roofline_from_profile(fixture_whole("sgemm_naive", map), map, peaks, fp32, 0);
  EXPECT_DOUBLE_EQ(a.inputs.peak_flop_per_second, h200.flops.at("fp32"));
  ASSERT_TRUE(a.point.arithmetic_intensity.has_value());
  EXPECT_GT(a.inputs.achieved_flop_per_second, 0);
  EXPECT_EQ(a.sources.achieved, AchievedSource::ncu);
  EXPECT_EQ(a.sources.flop_peak, PeaksSource::measured);
  EXPECT_EQ(a.sources.bytes_peak, PeaksSource::datasheet);
  EXPECT_GT(a.point.gaps.latency, 0);  // the stall shares reached the roofline
}

// The ceiling is the fastest rate the precision policy allows that the device has a peak for.
TEST_F(RooflineAnalysisTest, ComputeCeilingFollowsThePrecisionPolicy) {
  const auto ceiling = [&](std::string_view name) { return measure::fastest_rate_for(h200, spec::precision_named(name)); };
  EXPECT_EQ(ceiling("fp32"), "fp32");
  EXPECT_EQ(ceiling("tf32"), "tf32_tensor");
  EXPECT_EQ(ceiling("bf16"), "bf16_tensor");
  EXPECT_EQ(ceiling("fp16"), "fp16_tensor");
  EXPECT_EQ(ceiling("fp8"), "fp8_tensor");
  EXPECT_EQ(ceiling("fp64"), "fp64_tensor");  // DMMA is exact FP64, and twice the FMA rate
  measure::DevicePeaks fp32_only{.name = "x", .dram_bytes_per_second = 1e12, .flops = {{"fp32", 10e12}}};
  EXPECT_EQ(measure::fastest_rate_for(fp32_only, spec::precision_named("bf16")), "fp32");  // no tensor peak known
  EXPECT_EQ(measure::fastest_rate_for(fp32_only, spec::precision_named("fp8")), "");
}

TEST_F(RooflineAnalysisTest, ABf16GemmWithAnFp32OutputIsHeldToTheBf16TensorRate) {
  const RooflineAnalysis a =
      roofline_from_timing(200e-6, 2.0 * 4096 * 4096 * 4096, 3.0 * 4096 * 4096 * 2, h200, spec::precision_named("bf16"), "x");
  EXPECT_EQ(a.compute_ceiling, "bf16_tensor");
  EXPECT_DOUBLE_EQ(a.inputs.peak_flop_per_second, h200.flops.at("bf16_tensor"));
  EXPECT_EQ(roofline_analysis_json(a)["precision"], "bf16");
}

TEST_F(RooflineAnalysisTest, WithoutCountersTheWorkFormulasOverTheTimeAreDegradedEvidence) {
  // 2^26 floats read twice and written once in 170 µs.
  const double bytes = 12.0 * (1 << 26), seconds = 170e-6;
  const RooflineAnalysis a = roofline_from_timing(seconds, (1 << 26), bytes, h200, fp32, "ncu not found");
  EXPECT_TRUE(a.degraded);
  EXPECT_EQ(a.reason, "ncu not found");
  EXPECT_DOUBLE_EQ(a.inputs.achieved_bytes_per_second, bytes / seconds);
  EXPECT_EQ(a.sources.achieved, AchievedSource::work_formulas);
  EXPECT_EQ(a.point.bound, Bound::memory);
  const nlohmann::json document = roofline_analysis_json(a);
  EXPECT_TRUE(document["degraded"].get<bool>());
  EXPECT_EQ(document["reason"], "ncu not found");
  EXPECT_EQ(document["compute_ceiling"], "fp32");
}

TEST_F(RooflineAnalysisTest, ANonPositiveTimeIsRefused) {
  EXPECT_THROW(roofline_from_timing(0, 1, 1, h200, fp32, "x"), Error);
}

}  // namespace
}  // namespace kopt::roofline
