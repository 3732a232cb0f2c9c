#include "kopt/profile/launch_aggregate.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "kopt/core/error.hpp"
#include "kopt/core/files.hpp"
#include "profile_test_support.hpp"

namespace kopt::profile {
namespace {

using testing_support::fixture_launch;
using testing_support::h200_map;

constexpr double kSgemmSeconds = 25728192e-9, kVectorAddSeconds = 236064e-9;

TEST(LaunchConcepts, TakesTheDurationAndTheLaunchShape) {
  const MetricMap map = h200_map();
  const LaunchConcepts launch = launch_concepts(map, fixture_launch("vector_add"));
  EXPECT_DOUBLE_EQ(launch.duration_s, kVectorAddSeconds);
  EXPECT_EQ(launch.id, 0);
  EXPECT_THAT(launch.kernel_name, testing::StartsWith("vector_add_kernel("));
  EXPECT_GT(launch.grid.x, 0);
  EXPECT_EQ(launch.concepts.size(), map.concepts.size());
}

TEST(AggregateLaunches, OneLaunchIsItsOwnWhole) {
  const MetricMap map = h200_map();
  for (const char* kernel : {"sgemm_naive", "vector_add"}) {
    const LaunchConcepts launch = launch_concepts(map, fixture_launch(kernel));
    const WholeCall whole = aggregate_launches(map, {launch});
    EXPECT_DOUBLE_EQ(whole.duration_s, launch.duration_s);
    EXPECT_THAT(whole.missing, testing::IsEmpty());
    for (const auto& [name, resolved] : launch.concepts) {
      ASSERT_TRUE(whole.values.at(name).has_value()) << kernel << " " << name;
      EXPECT_DOUBLE_EQ(*whole.values.at(name), *resolved.value) << kernel << " " << name;
    }
  }
}

// A Triton kernel profiled through its Python-hosted worker (ncu 2025.3.1 on an H100, the
// twenty-fourth session): the one launch inside kopt's NVTX range is Triton's softmax_kernel,
// and every concept resolves from it, as from a .cu kernel's report.
TEST(LaunchConcepts, ATritonKernelsRealReportResolvesEveryConcept) {
  const MetricMap map = h200_map();
  const NcuReport report = parse_ncu_raw_csv(
      read_file(std::string(KOPT_FIXTURES_DIR) + "/ncu/ncu2025.3.1_h100_sm90_raw_triton_softmax.csv"));
  ASSERT_EQ(report.launches.size(), 1u);
  const LaunchConcepts launch = launch_concepts(map, report.launches[0]);
  EXPECT_EQ(launch.kernel_name, "softmax_kernel");
  EXPECT_DOUBLE_EQ(launch.duration_s, 262976e-9);
  EXPECT_EQ(launch.grid.x, 8192);
  const WholeCall whole = aggregate_launches(map, {launch});
  EXPECT_THAT(whole.missing, testing::IsEmpty());
  EXPECT_DOUBLE_EQ(*whole.values.at("dram_bytes"), 785982464.0);
  EXPECT_DOUBLE_EQ(*whole.values.at("tensor_pipe"), 0.0);  // a softmax: no tensor-core work
}

// The two real reports as if one `solve` had launched both kernels; the expected numbers
// are the fixtures' cells, combined by hand.
TEST(AggregateLaunches, TwoLaunchesCombineByEachConceptsRule) {
  const MetricMap map = h200_map();
  const WholeCall whole = aggregate_launches(
      map, {launch_concepts(map, fixture_launch("sgemm_naive")), launch_concepts(map, fixture_launch("vector_add"))});
  const double seconds = kSgemmSeconds + kVectorAddSeconds;
  EXPECT_DOUBLE_EQ(whole.duration_s, seconds);
  EXPECT_DOUBLE_EQ(*whole.values.at("duration"), seconds);  // a counter: the sum
  // DRAM throughput 5.70 % for 25.728 ms and 69.81 % for 0.236 ms: 6.2829 % over the call.
  EXPECT_NEAR(*whole.values.at("dram_throughput"), (0.0570 * kSgemmSeconds + 0.6981 * kVectorAddSeconds) / seconds,
              1e-15);
  EXPECT_NEAR(*whole.values.at("dram_throughput"), 0.0628288, 1e-7);
  // Bytes: 6,987,695,104 + 69,427,456 read and written by the SGEMM, 536,878,080 + 255,950,592 by the add.
  EXPECT_DOUBLE_EQ(*whole.values.at("dram_bytes"), 7849951232.0);
  // A rate's time-weighted mean is total bytes over total time (ncu's per-second figures use
  // the same durations, to its printed precision).
  EXPECT_NEAR(*whole.values.at("dram_bytes_per_second"), 7849951232.0 / seconds, 1e-9 * 7849951232.0 / seconds);
  // Resources: the larger of the two launches.
  EXPECT_DOUBLE_EQ(*whole.values.at("registers_per_thread"), 32);
  EXPECT_DOUBLE_EQ(*whole.values.at("waves_per_sm"), 248.24);
  EXPECT_DOUBLE_EQ(*whole.values.at("shared_memory_per_block"), 1024);
  EXPECT_THAT(whole.missing, testing::IsEmpty());
}

TEST(AggregateLaunches, AConceptMissingFromOneLaunchIsMissingFromTheWholeNamingIt) {
  const MetricMap map = h200_map();
  KernelLaunch stripped = fixture_launch("vector_add");
  stripped.id = 1;
  stripped.metrics.erase("gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed");
  const WholeCall whole =
      aggregate_launches(map, {launch_concepts(map, fixture_launch("sgemm_naive")), launch_concepts(map, stripped)});
  EXPECT_FALSE(whole.values.at("dram_throughput").has_value());
  EXPECT_THAT(whole.missing.at("dram_throughput"),
              testing::ElementsAre("vector_add_kernel(const float *, const float *, float *, int) (ID 1)"));
  EXPECT_TRUE(whole.values.at("sm_throughput").has_value());
}

TEST(AggregateLaunches, ALaunchWithoutDurationCannotWeighALevelButStillAddsWork) {
  const MetricMap map = h200_map();
  KernelLaunch no_time = fixture_launch("vector_add");
  no_time.metrics.erase("gpu__time_duration.sum");
  const WholeCall whole =
      aggregate_launches(map, {launch_concepts(map, fixture_launch("sgemm_naive")), launch_concepts(map, no_time)});
  EXPECT_THAT(whole.missing.at("sm_throughput"), testing::ElementsAre(testing::EndsWith("(ID 0) (no duration)")));
  EXPECT_TRUE(whole.values.at("dram_bytes").has_value());
  EXPECT_FALSE(whole.values.at("duration").has_value());
}

TEST(AggregateLaunches, RejectsNoLaunches) { EXPECT_THROW(aggregate_launches(h200_map(), {}), Error); }

TEST(MetricMapCombine, DefaultsByKindAndReadsTheExplicitRule) {
  const MetricMap map = h200_map();
  EXPECT_EQ(map.find("dram_bytes")->combine, Combine::sum);
  EXPECT_EQ(map.find("dram_throughput")->combine, Combine::time_weighted);
  EXPECT_EQ(map.find("fp32_flop_per_second")->combine, Combine::time_weighted);
  EXPECT_EQ(map.find("registers_per_thread")->combine, Combine::max);
  EXPECT_EQ(map.find("waves_per_sm")->combine, Combine::max);
  EXPECT_EQ(to_string(Combine::time_weighted), "time_weighted");
}

TEST(MetricMapCombine, RejectsAnUnknownRule) {
  const std::string text =
      "schema_version = 1\n[ncu.\"2025.3\".sm_90.x]\nmetric = \"m\"\nkind = \"counter\"\nbad = \"none\"\n"
      "axis = \"work\"\ncombine = \"average\"\n";
  EXPECT_THAT([&] { parse_metric_map(text, "m.toml", "2025.3", "sm_90"); },
              testing::ThrowsMessage<Error>(testing::HasSubstr("'combine' = 'average'")));
}

}  // namespace
}  // namespace kopt::profile
