#include "kopt/profile/ncu_top.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "kopt/core/error.hpp"
#include "profile_test_support.hpp"

namespace kopt::profile {
namespace {

using testing_support::fixture_launch;
using testing_support::h200_map;

NcuTop top_of(const MetricMap& map, const KernelLaunch& launch, int k = kDefaultTopK) {
  return rank_top_metrics(launch, map, resolve_concepts(map, launch), k);
}

std::vector<std::string> names(const std::vector<TopMetric>& list) {
  std::vector<std::string> result;
  for (const TopMetric& m : list) result.push_back(m.name);
  return result;
}

KernelLaunch launch_with(std::map<std::string, double> percent_columns) {
  KernelLaunch launch{.id = 0, .kernel_name = "k"};
  for (const auto& [name, value] : percent_columns) {
    launch.metrics[name] = MetricValue{.value = value, .unit = "%", .present = true};
  }
  return launch;
}

const MetricMap kEmptyMap{};
const TopRules kMemoryRules{{TopRule{.prefix = "l1tex__", .axis = "memory", .bad = BadDirection::high}}};

TEST(NcuTop, EachAxisHoldsAtMostKReadingsWorstFirst) {
  const MetricMap map = h200_map();
  for (const char* kernel : {"sgemm_naive", "vector_add"}) {
    const NcuTop top = top_of(map, fixture_launch(kernel), 3);
    ASSERT_THAT(top.by_axis, testing::SizeIs(3)) << kernel;
    for (const auto& [axis, list] : top.by_axis) {
      EXPECT_THAT(list, testing::SizeIs(3)) << kernel << " " << axis;
      for (size_t i = 0; i < list.size(); ++i) {
        EXPECT_GE(list[i].badness, 0);
        EXPECT_LE(list[i].badness, 1);
        if (i > 0) EXPECT_GE(list[i - 1].badness, list[i].badness) << kernel << " " << axis;
      }
    }
  }
}

// The naive SGEMM keeps the L1 busy (96 % of its wavefronts) while the FMA pipe idles; warps
// wait on the L1 (long scoreboard) more than on anything. The unused tensor pipe is a fact,
// not a symptom: it is never ranked.
TEST(NcuTop, NaiveSgemmPointsAtTheIdlePipesTheBusyL1AndTheLongScoreboard) {
  const NcuTop top = top_of(h200_map(), fixture_launch("sgemm_naive"), 3);
  EXPECT_THAT(names(top.by_axis.at("compute")), testing::ElementsAre("fp32_pipe", testing::_, testing::_));
  EXPECT_THAT(names(top_of(h200_map(), fixture_launch("sgemm_naive"), 50).by_axis.at("compute")),
              testing::Not(testing::Contains("tensor_pipe")));
  EXPECT_THAT(names(top.by_axis.at("memory")), testing::Contains("l1tex__data_pipe_lsu_wavefronts.avg.pct_of_peak_sustained_elapsed"));
  EXPECT_EQ(top.by_axis.at("latency").front().name, "stall_long_scoreboard");
  const NcuTop all = top_of(h200_map(), fixture_launch("sgemm_naive"), 50);
  for (const TopMetric& m : all.by_axis.at("memory")) {
    if (m.source == "metric") EXPECT_THAT(m.name, testing::Not(testing::HasSubstr("hit_rate")));
  }
}

TEST(NcuTop, ValuesAreRatiosWithTheirBadDirectionAndSource) {
  const NcuTop top = top_of(h200_map(), fixture_launch("sgemm_naive"));
  const TopMetric& fp32 = top.by_axis.at("compute").at(0);
  ASSERT_EQ(fp32.name, "fp32_pipe");
  EXPECT_EQ(fp32.metric, "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active");
  EXPECT_NEAR(fp32.value, 0.1007, 1e-12);
  EXPECT_EQ(fp32.unit, "ratio");
  EXPECT_EQ(fp32.bad, "low");
  EXPECT_NEAR(fp32.badness, 1 - 0.1007, 1e-12);
  EXPECT_EQ(fp32.source, "concept");
}

TEST(NcuTop, CountersAndRatesAreContextNeverRanked) {
  const NcuTop top = top_of(h200_map(), fixture_launch("vector_add"), 50);
  for (const auto& [axis, list] : top.by_axis) {
    for (const TopMetric& m : list) {
      EXPECT_EQ(m.unit, "ratio") << m.name;
      for (const char* counter : {"fp32_flop", "fp32_flop_per_second", "dram_bytes", "dram_bytes_per_second",
                                  "duration", "ipc", "registers_per_thread", "shared_bank_conflicts", "waves_per_sm"}) {
        EXPECT_NE(m.name, counter);
      }
    }
  }
  std::map<std::string, ContextMetric> context;
  for (const ContextMetric& c : top.context) context[c.name] = c;
  EXPECT_EQ(context.at("duration").unit, "s");
  EXPECT_DOUBLE_EQ(context.at("duration").value, 236064e-9);
  EXPECT_EQ(context.at("fp32_flop_per_second").unit, "FLOP/s");
  EXPECT_EQ(context.at("dram_bytes").unit, "byte");
  EXPECT_EQ(context.at("dram_bytes_per_second").unit, "byte/s");
  EXPECT_EQ(context.at("ipc").unit, "inst/cycle");
  EXPECT_EQ(context.at("ipc").kind, "ratio");
  EXPECT_EQ(context.at("shared_bank_conflicts").kind, "counter");
  EXPECT_THAT(top.missing, testing::IsEmpty());
}

TEST(NcuTop, ARawColumnOfACounterThatAConceptReadsIsNotListedTwice) {
  const NcuTop top = top_of(h200_map(), fixture_launch("sgemm_naive"), 50);
  for (const TopMetric& m : top.by_axis.at("memory")) {
    if (m.source == "metric") EXPECT_THAT(m.name, testing::Not(testing::StartsWith("gpu__compute_memory_throughput.")));
  }
  for (const TopMetric& m : top.by_axis.at("compute")) {
    if (m.source == "metric") EXPECT_THAT(m.name, testing::Not(testing::StartsWith("sm__throughput.")));
  }
}

TEST(NcuTop, NoMinOrMaxRollUpIsRankedInTheRealReports) {
  const MetricMap map = h200_map();
  for (const char* kernel : {"sgemm_naive", "vector_add"}) {
    const NcuTop top = top_of(map, fixture_launch(kernel), 50);
    for (const auto& [axis, list] : top.by_axis) {
      for (const TopMetric& m : list) {
        EXPECT_THAT(m.name, testing::Not(testing::HasSubstr(".max."))) << kernel;
        EXPECT_THAT(m.name, testing::Not(testing::HasSubstr(".min."))) << kernel;
      }
    }
  }
}

TEST(NcuTop, AMaxRollUpStandsInOnlyWithoutAnAvgSumOrPlainSibling) {
  const KernelLaunch with_avg = launch_with({{"l1tex__a.avg.pct_of_peak_sustained_elapsed", 40},
                                             {"l1tex__a.max.pct_of_peak_sustained_elapsed", 90}});
  const auto ranked = rank_top_metrics(with_avg, kEmptyMap, {}, kMemoryRules).by_axis.at("memory");
  EXPECT_THAT(names(ranked), testing::ElementsAre("l1tex__a.avg.pct_of_peak_sustained_elapsed"));

  const KernelLaunch max_only = launch_with({{"l1tex__b.max.pct_of_peak_sustained_elapsed", 90}});
  EXPECT_THAT(names(rank_top_metrics(max_only, kEmptyMap, {}, kMemoryRules).by_axis.at("memory")),
              testing::ElementsAre("l1tex__b.max.pct_of_peak_sustained_elapsed"));
}

TEST(NcuTop, OneReadingPerCounterItsWorst) {
  const KernelLaunch launch = launch_with({{"l1tex__a.avg.pct_of_peak_sustained_active", 70},
                                           {"l1tex__a.avg.pct_of_peak_sustained_elapsed", 60},
                                           {"l1tex__a.sum.pct_of_peak_sustained_elapsed", 60}});
  const auto ranked = rank_top_metrics(launch, kEmptyMap, {}, kMemoryRules).by_axis.at("memory");
  ASSERT_THAT(ranked, testing::SizeIs(1));
  EXPECT_EQ(ranked[0].name, "l1tex__a.avg.pct_of_peak_sustained_active");
  EXPECT_DOUBLE_EQ(ranked[0].badness, 0.70);
}

TEST(NcuTop, ColumnsThatNoRuleNamesOrThatAreNotPercentagesAreNotRanked) {
  KernelLaunch launch = launch_with({{"sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_active", 0}});
  launch.metrics["l1tex__t_bytes.sum"] = MetricValue{.value = 1e9, .unit = "byte", .present = true};
  launch.metrics["l1tex__empty.avg.pct_of_peak_sustained_elapsed"] = MetricValue{.unit = "%"};
  const NcuTop top = rank_top_metrics(launch, kEmptyMap, {}, kMemoryRules);
  for (const auto& [axis, list] : top.by_axis) EXPECT_THAT(list, testing::IsEmpty()) << axis;
}

TEST(NcuTopRules, TheLongestPrefixWinsAndHitRatesAreLeftToTheConcepts) {
  const TopRules rules = load_top_rules();
  EXPECT_EQ(rules.match("lts__throughput.avg.pct_of_peak_sustained_elapsed")->bad, BadDirection::high);
  EXPECT_EQ(rules.match("smsp__issue_active.avg.pct_of_peak_sustained_active")->axis, "latency");
  EXPECT_FALSE(rules.match("l1tex__t_sector_pipe_lsu_mem_global_op_atom_hit_rate.pct"));
  EXPECT_FALSE(rules.match("lts__t_sector_op_write_hit_rate.pct"));
  EXPECT_EQ(rules.match("sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_active")->bad, BadDirection::high);
  EXPECT_FALSE(rules.match("derived__pct_occupancy_per_block_size"));
  EXPECT_FALSE(rules.match("TPC.TriageCompute.sm__inst_executed_realtime.avg.pct_of_peak_sustained_elapsed"));
  const TopRules nested{{TopRule{"l1tex__", "memory", BadDirection::high}, TopRule{"l1tex__t_", "latency", BadDirection::low}}};
  EXPECT_EQ(nested.match("l1tex__t_sectors.sum.pct_of_peak_sustained_elapsed")->axis, "latency");
  EXPECT_EQ(nested.match("l1tex__throughput.avg.pct_of_peak_sustained_elapsed")->axis, "memory");
}

TEST(NcuTopRules, RejectsAMalformedRuleNamingTheFileAndTheRule) {
  const std::string bad_axis = "schema_version = 1\n[ncu_top]\nrules = [{ prefix = \"sm__\", axis = \"launch\", bad = \"high\" }]\n";
  EXPECT_THAT([&] { parse_top_rules(bad_axis, "t.toml"); },
              testing::ThrowsMessage<Error>(testing::HasSubstr("t.toml: [ncu_top] rule 1: axis 'launch'")));
  const std::string bad_direction = "schema_version = 1\n[ncu_top]\nrules = [{ prefix = \"sm__\", axis = \"compute\", bad = \"none\" }]\n";
  EXPECT_THROW(parse_top_rules(bad_direction, "t.toml"), Error);
  EXPECT_THROW(parse_top_rules("schema_version = 1\n", "t.toml"), Error);
}

TEST(NcuTopBadness, IsTheValueOrItsComplementClampedToOne) {
  EXPECT_DOUBLE_EQ(badness_of(0.25, BadDirection::high), 0.25);
  EXPECT_DOUBLE_EQ(badness_of(0.25, BadDirection::low), 0.75);
  EXPECT_DOUBLE_EQ(badness_of(1.0061, BadDirection::low), 0);
  EXPECT_DOUBLE_EQ(badness_of(1.5, BadDirection::high), 1);
  EXPECT_DOUBLE_EQ(badness_of(0.5, BadDirection::none), 0);
}

TEST(NcuTopJson, HasTheSchemaKAxesContextAndMissing) {
  const nlohmann::json json = to_json(top_of(h200_map(), fixture_launch("vector_add")));
  EXPECT_EQ(json.at("schema"), "kopt.ncu_top/1");
  EXPECT_EQ(json.at("k"), 5);
  for (const char* axis : {"compute", "memory", "latency"}) {
    const nlohmann::json& list = json.at("axes").at(axis);
    ASSERT_EQ(list.size(), 5u) << axis;
    for (const char* key : {"name", "metric", "value", "unit", "bad", "badness", "source"}) {
      EXPECT_TRUE(list[0].contains(key)) << axis << " " << key;
    }
  }
  EXPECT_TRUE(json.at("context").is_array());
  EXPECT_TRUE(json.at("missing").is_array());
}

TEST(NcuTop, RejectsAKUnderOne) {
  EXPECT_THROW(rank_top_metrics(KernelLaunch{}, kEmptyMap, {}, kMemoryRules, 0), Error);
}

}  // namespace
}  // namespace kopt::profile
