#include "kopt/loop/close_steps.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "kopt/catalog/plan_inputs.hpp"
#include "kopt/core/files.hpp"

namespace kopt::loop {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

VariantOutcome passed(double median, std::optional<VersusFirst> versus = std::nullopt) {
  return {.label = "v", .passed = true, .median = median, .versus_first = versus};
}

VariantOutcome failed() { return {.label = "v", .passed = false, .failure = "wrong result"}; }

TEST(PickFinalists, TheFastestPassingBranchesThatBeatTheBestFastestFirst) {
  // [0] is the best; 1.2 is slower than it, [3] failed.
  const std::vector<VariantOutcome> screen = {passed(1.0), passed(0.8), passed(1.2), failed(), passed(0.5), passed(0.9)};
  EXPECT_EQ(pick_finalists(screen, 2), (std::vector<std::size_t>{4, 1}));
  EXPECT_EQ(pick_finalists(screen, 9), (std::vector<std::size_t>{4, 1, 5}));
  EXPECT_TRUE(pick_finalists({passed(1.0), passed(1.1)}, 3).empty());
}

TEST(PickChampion, TheSurestFasterFinalistAndNoneWhenNoneIsFaster) {
  const std::vector<VariantOutcome> finals = {
      passed(1.0),
      passed(0.7, VersusFirst{.verdict = "faster", .ratio = 0.7, .low = 0.6, .high = 0.85}),
      passed(0.72, VersusFirst{.verdict = "faster", .ratio = 0.72, .low = 0.7, .high = 0.74}),  // surest
      passed(0.5, VersusFirst{.verdict = "ambiguous", .ratio = 0.5, .low = 0.2, .high = 1.3})};
  EXPECT_EQ(pick_champion(finals), std::optional<std::size_t>(2));
  EXPECT_EQ(pick_champion({passed(1.0), passed(0.9, VersusFirst{.verdict = "same"})}), std::nullopt);
  EXPECT_EQ(pick_champion({passed(1.0)}), std::nullopt);
}

TEST(Classify, TheSignatureFirstThenTheAblationsVerdict) {
  const VariantOutcome slower_without = passed(1.2, VersusFirst{.verdict = "slower", .ratio = 1.2});
  const VariantOutcome same_without = passed(1.0, VersusFirst{.verdict = "same", .ratio = 1.0});
  EXPECT_EQ(classify("missing", slower_without), "implementation_failed");
  EXPECT_EQ(classify("switched_off", slower_without), "implementation_failed");
  EXPECT_EQ(classify("found", slower_without), "effective");
  EXPECT_EQ(classify("found", same_without), "ineffective");
  // Significantly faster without it: the method costs time.
  EXPECT_EQ(classify("found", passed(0.96, VersusFirst{.verdict = "faster", .ratio = 0.96})), "harmful");
  EXPECT_EQ(classify("missing", passed(0.96, VersusFirst{.verdict = "faster", .ratio = 0.96})), "implementation_failed");
  EXPECT_EQ(classify("found", std::nullopt), "not_ablated");
  EXPECT_EQ(classify("not_verifiable", failed()), "not_ablated");
}

// A switch on without a claim: refused when claiming it beside the branch's claims would break
// a rule (a skip condition, or a budget those claims already spend), kept when it was effective
// before, else unclaimed; each with its macro, none ablated (issue 58).
TEST(UnclaimedSwitches, EachSaysWhetherItsClaimWouldHaveBeenRefused) {
  const fs::path evidence = fs::path(KOPT_FIXTURES_DIR) / "evidence" / "h200_sgemm_naive";
  catalog::PlanInputs inputs =
      catalog::read_plan_inputs({.profile = evidence / "profile.json", .roofline = evidence / "roofline.json"}, {});
  inputs.history = {{"memory.coalescing", "effective", 1}};
  const Branch branch{.name = "b1", .methods = {"compute.register_tiling", "memory.smem_padding", "memory.tiling_smem"}};
  const std::vector<spec::MethodSwitch> on = {{"KOPT_USE_SMEM_TILING", "memory.tiling_smem"},
                                              {"KOPT_USE_VECTORIZED_ACCESS", "memory.vectorized_access"},
                                              {"KOPT_USE_CP_ASYNC_PIPELINE", "latency.cp_async_pipeline"},
                                              {"KOPT_USE_COALESCING", "memory.coalescing"}};
  const json rows = unclaimed_switches(on, branch, inputs);
  ASSERT_EQ(rows.size(), 3u);  // the claimed one is no row
  EXPECT_EQ(rows[0]["id"], "memory.vectorized_access");
  EXPECT_EQ(rows[0]["macro"], "KOPT_USE_VECTORIZED_ACCESS");
  EXPECT_EQ(rows[0]["status"], "refused");  // a fourth method: past the budget of three
  EXPECT_THAT(rows[0]["refused_by"].dump(), ::testing::HasSubstr("budget"));
  EXPECT_EQ(rows[1]["status"], "refused");
  EXPECT_THAT(rows[1]["refused_by"].dump(), ::testing::HasSubstr("skip condition"));
  EXPECT_EQ(rows[2]["status"], "kept");
  EXPECT_THAT(rows[2]["reason"].get<std::string>(), ::testing::HasSubstr("effective in iteration 1"));
  EXPECT_EQ(unclaimed_switches(on, branch, std::nullopt)[0]["status"], "unclaimed");  // no evidence: no rules to hold
}

TEST(TimeSpent, KoptsOwnTimeIsWhatNoProcessTookChargedPerBranch) {
  const json time = time_spent(10.0, ProcessTimes{.compile_s = 3, .device_s = 4, .compile_or_device_s = 6}, 4);
  EXPECT_DOUBLE_EQ(time.at("wall_s").get<double>(), 10.0);
  EXPECT_DOUBLE_EQ(time.at("kopt_s").get<double>(), 4.0);
  EXPECT_DOUBLE_EQ(time.at("kopt_s_per_branch").get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(time_spent(1.0, ProcessTimes{.compile_or_device_s = 2}, 0).at("kopt_s").get<double>(), 0.0);
}

TEST(EvidenceSummary, TheRooflinesBoundGapsAndFlagsOrNullWithoutOne) {
  TempDir dir("close-steps");
  EXPECT_TRUE(evidence_summary(dir.path()).is_null());
  write_file_atomic(dir.path() / "roofline.json",
                    json{{"bound", "memory"}, {"gaps", {{"memory", 0.3}}}, {"degraded", true}, {"other", 1}}.dump());
  const json summary = evidence_summary(dir.path());
  EXPECT_EQ(summary.at("bound"), "memory");
  EXPECT_TRUE(summary.at("degraded").get<bool>());
  EXPECT_FALSE(summary.at("near_peak").get<bool>());
  EXPECT_FALSE(summary.contains("other"));
}

}  // namespace
}  // namespace kopt::loop
