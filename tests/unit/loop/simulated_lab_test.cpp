#include "kopt/loop/simulated_lab.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "kopt/core/files.hpp"
#include "loop_fixtures.hpp"

namespace kopt::loop {
namespace {
namespace fs = std::filesystem;
using json = nlohmann::json;

// examples/sgemm_tiled's [work] at its dims (M = N = K = 4096), and the FP32 ceiling of the
// model's evidence (tests/fixtures/evidence/h200_sgemm_naive/roofline.json).
constexpr double kN = 4096;
const spec::CaseWork kSgemmWork{.flops = 2 * kN * kN * kN, .bytes = 4 * 3 * kN * kN};
constexpr double kFp32Peak = 63568305027367.64;
const double kRoofSeconds = kSgemmWork.flops / kFp32Peak;

Variant baseline() { return {.label = "baseline", .kernel = kKernel / "sgemm_tiled.cu"}; }

// Every factor of the model that pays, together: 0.020 s × 0.52 × 0.55 × 0.5 × 0.52 × 0.9 ×
// 0.96 × 0.98 ≈ 1.26 ms, past the 2.16 ms the FP32 ceiling allows 2·4096³ FLOP.
Variant fastest() {
  return {.label = "fastest",
          .kernel = kKernel / "sgemm_tiled.cu",
          .defines = {{"BM", "128"}, {"BN", "128"}, {"TM", "8"}, {"TN", "8"}, {"VEC", "4"}, {"STAGES", "2"}, {"BK", "16"}}};
}

double median_of(SimulatedLab& lab, const Variant& variant) {
  const Measurement m = lab.measure({.variants = {baseline(), variant}});
  return m.outcomes.back().median;
}

TEST(SimulatedLab, AModelLeftAloneMultipliesPastTheRoof) {
  SimulatedLab lab(kModel);
  EXPECT_LT(median_of(lab, fastest()), kRoofSeconds);  // what issue 60 saw: 109 TFLOP/s on a 63.6 roof
}

TEST(SimulatedLab, HeldToTheRooflineNoVariantIsFasterThanTheCeilingsAllow) {
  SimulatedLab lab(kModel);
  lab.hold_to_roofline(kSgemmWork);
  const Measurement m = lab.measure({.variants = {baseline(), fastest()}});
  for (const VariantOutcome& outcome : m.outcomes) {
    EXPECT_GE(outcome.median, kRoofSeconds) << outcome.label;
    EXPECT_GE(outcome.median_low, kRoofSeconds) << outcome.label;  // no drawn sample below the roof either
  }
  // Close to the roof, not far from it: the model's order survives (fastest is still faster).
  EXPECT_LT(m.outcomes.back().median, 1.05 * kRoofSeconds);
  EXPECT_EQ(m.outcomes.back().versus_first->verdict, "faster");
  // A variant far above the roof keeps the model's time.
  EXPECT_NEAR(m.outcomes.front().median, 0.020, 0.020 * 0.005);
}

TEST(SimulatedLab, HeldToTheRooflineEachProfilePlacesItsVariant) {
  SimulatedLab lab(kModel);
  lab.hold_to_roofline(kSgemmWork);
  TempDir dir("simulated-profile");
  const Evidence slow = lab.profile(baseline(), dir.path() / "slow");
  const Evidence fast = lab.profile(fastest(), dir.path() / "fast");
  for (const Evidence* e : {&slow, &fast}) {
    const json& r = e->roofline;
    EXPECT_LE(r["achieved"]["flop_per_second"].get<double>(), r["peaks"]["flop_per_second"].get<double>());
    EXPECT_TRUE(r["degraded"].get<bool>());
    EXPECT_THAT(r["reason"].get<std::string>(), ::testing::HasSubstr("simulated"));
  }
  // The written file is the one returned, and the gaps move as the kernel gets faster.
  EXPECT_EQ(json::parse(read_file(dir.path() / "fast" / "roofline.json")), fast.roofline);
  EXPECT_GT(slow.roofline["gaps"]["compute"].get<double>(), 0.5);
  EXPECT_LT(fast.roofline["gaps"]["compute"].get<double>(), 0.05);
  EXPECT_EQ(fast.roofline["bound"], "compute");
}

TEST(SimulatedLab, RecordsItsModelSoThatTheNextStepCanNameIt) {
  SimulatedLab lab(kModel);
  const json env = lab.environment();
  EXPECT_TRUE(env["simulated"].get<bool>());
  EXPECT_EQ(fs::path(env["lab_model"].get<std::string>()), fs::absolute(kModel).lexically_normal());
}

}  // namespace
}  // namespace kopt::loop
