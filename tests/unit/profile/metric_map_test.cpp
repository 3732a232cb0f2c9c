#include "kopt/profile/metric_map.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "kopt/core/error.hpp"
#include "kopt/core/files.hpp"
#include "profile_test_support.hpp"

namespace kopt::profile {
namespace {

using testing_support::fixture_launch;
using testing_support::h200_map;

double value_of(const std::map<std::string, ResolvedConcept>& resolved, const std::string& name) {
  return resolved.at(name).value.value();
}

// The point of the map: every name in it exists, and was collected, in real 2025.3 reports.
TEST(MetricMap, EveryConceptResolvesInBothRealH200Reports) {
  const MetricMap map = h200_map();
  EXPECT_EQ(map.ncu_version, "2025.3");
  for (const char* kernel : {"vector_add", "sgemm_naive"}) {
    const KernelLaunch launch = fixture_launch(kernel);
    for (const auto& [name, concept_value] : resolve_concepts(map, launch)) {
      EXPECT_TRUE(concept_value.value.has_value())
          << kernel << ": " << name << " is missing " << testing::PrintToString(concept_value.missing);
    }
  }
}

TEST(MetricMap, NamesTheConceptsTheRooflineAndThePlannerNeed) {
  const MetricMap map = h200_map();
  for (const char* name : {"sm_throughput", "memory_throughput", "dram_throughput", "tensor_pipe", "fp32_pipe", "ipc",
                           "achieved_occupancy", "l1_hit_rate", "l2_hit_rate", "shared_bank_conflicts",
                           "stall_long_scoreboard", "stall_short_scoreboard", "stall_barrier", "stall_mio_throttle",
                           "stall_lg_throttle", "stall_math_pipe_throttle", "stall_wait", "stall_not_selected",
                           "stall_dispatch_stall", "stall_no_instruction", "stall_membar", "registers_per_thread",
                           "shared_memory_per_block", "waves_per_sm", "fp32_flop", "fp32_flop_per_second",
                           "dram_bytes", "duration"}) {
    EXPECT_NE(map.find(name), nullptr) << name;
  }
  EXPECT_EQ(map.find("dram_throughput")->kind, MetricKind::percent);
  EXPECT_EQ(map.find("dram_throughput")->bad, BadDirection::low);
  EXPECT_EQ(map.find("shared_bank_conflicts")->kind, MetricKind::counter);
}

TEST(MetricMap, VectorAddReadsAsAMemoryStreamingKernel) {
  const auto resolved = resolve_concepts(h200_map(), fixture_launch("vector_add"));
  EXPECT_DOUBLE_EQ(value_of(resolved, "duration"), 236064e-9);
  EXPECT_GT(value_of(resolved, "dram_throughput"), 0.60);
  EXPECT_DOUBLE_EQ(value_of(resolved, "dram_bytes"), 536878080.0 + 255950592.0);
  // One FADD per element, 2^26 elements: the count comes back from per-cycle rates.
  EXPECT_NEAR(value_of(resolved, "fp32_flop"), 67108864.0, 67108864.0 * 0.01);
  EXPECT_NEAR(value_of(resolved, "fp32_flop_per_second"), 67108864.0 / 236064e-9, 67108864.0 / 236064e-9 * 0.02);
  EXPECT_NEAR(value_of(resolved, "stall_long_scoreboard"), 57.52 / 67.99, 1e-12);
  EXPECT_DOUBLE_EQ(value_of(resolved, "waves_per_sm"), 248.24);
}

TEST(MetricMap, NaiveSgemmMovesLessOfDramThanVectorAdd) {
  const MetricMap map = h200_map();
  const auto sgemm = resolve_concepts(map, fixture_launch("sgemm_naive"));
  const auto vector_add = resolve_concepts(map, fixture_launch("vector_add"));
  EXPECT_LT(value_of(sgemm, "dram_throughput"), value_of(vector_add, "dram_throughput"));
  EXPECT_DOUBLE_EQ(value_of(sgemm, "duration"), 25728192e-9);
  // 2·M·N·K for M = N = K = 4096, counted by the FFMA rate.
  EXPECT_NEAR(value_of(sgemm, "fp32_flop"), 2.0 * 4096 * 4096 * 4096, 2.0 * 4096 * 4096 * 4096 * 0.01);
}

TEST(MetricMap, AConceptWhoseMetricIsAbsentOrEmptyIsMissingNotZero) {
  const MetricMap map = h200_map();
  KernelLaunch launch = fixture_launch("vector_add");
  launch.metrics.erase("gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed");
  launch.metrics["dram__bytes_write.sum"].present = false;
  const auto resolved = resolve_concepts(map, launch);
  EXPECT_FALSE(resolved.at("dram_throughput").value);
  EXPECT_THAT(resolved.at("dram_throughput").missing,
              testing::ElementsAre("gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed"));
  EXPECT_FALSE(resolved.at("dram_bytes").value);
  EXPECT_THAT(resolved.at("dram_bytes").missing, testing::ElementsAre("dram__bytes_write.sum"));
  EXPECT_TRUE(resolved.at("duration").value);
}

TEST(MetricMap, AZeroDivisorIsMissing) {
  const MetricMap map = h200_map();
  KernelLaunch launch = fixture_launch("vector_add");
  launch.metrics["smsp__average_warp_latency_per_inst_issued.ratio"].value = 0;
  EXPECT_FALSE(resolve_concepts(map, launch).at("stall_wait").value);
}

TEST(MetricMap, AnUnknownVersionOrArchitectureHasNoMap) {
  EXPECT_FALSE(load_metric_map("2024.1.0", "sm_90"));
  EXPECT_FALSE(load_metric_map("2025.3.1", "sm_80"));
}

void expect_rejected(std::string_view body, std::string_view fragment) {
  const std::string text = "schema_version = 1\n[ncu.\"2025.3\".sm_90.broken]\n" + std::string(body);
  try {
    parse_metric_map(text, "metrics.toml", "2025.3", "sm_90");
    ADD_FAILURE() << "accepted: " << body;
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), testing::HasSubstr("metrics.toml: [ncu.\"2025.3\".sm_90.broken]")) << e.what();
    EXPECT_THAT(e.what(), testing::HasSubstr(fragment)) << e.what();
    EXPECT_EQ(e.code(), ExitCode::bad_input);
  }
}

TEST(MetricMap, RejectsAMalformedEntryNamingTheFileAndTheEntry) {
  const std::string tail = "kind = \"percent\"\nbad = \"low\"\naxis = \"memory\"\n";
  expect_rejected(tail, "exactly one of 'metric' and 'terms'");
  expect_rejected("metric = \"a\"\nterms = [{ metric = \"b\", weight = 1.0 }]\n" + tail, "exactly one");
  expect_rejected("metric = \"a\"\nkind = \"percentage\"\nbad = \"low\"\naxis = \"memory\"\n", "'kind'");
  expect_rejected("metric = \"a\"\nkind = \"percent\"\nbad = \"up\"\naxis = \"memory\"\n", "'bad'");
  expect_rejected("metric = \"a\"\nkind = \"percent\"\nbad = \"low\"\naxis = \"dram\"\n", "axis 'dram'");
  expect_rejected("metric = \"a\"\nkind = \"percent\"\nbad = \"low\"\n", "'axis'");
  expect_rejected("terms = [{ metric = \"b\" }]\n" + tail, "'weight'");
  expect_rejected("metric = \"a\"\nunit = \"%\"\n" + tail, "unknown key 'unit'");
}

TEST(MetricMap, RejectsAFileWithoutItsSchemaVersion) {
  EXPECT_THROW(parse_metric_map("[ncu]\n", "metrics.toml", "2025.3", "sm_90"), Error);
}

TEST(MetricUnits, ConvertsTimeAndPercentToSi) {
  EXPECT_DOUBLE_EQ(si_factor("ns"), 1e-9);
  EXPECT_DOUBLE_EQ(si_factor("%"), 0.01);
  EXPECT_DOUBLE_EQ(si_factor("byte"), 1.0);
}

}  // namespace
}  // namespace kopt::profile
