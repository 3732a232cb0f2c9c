// The lab's memory of the checks its measurements passed (checked_variants.hpp), and the profile
// step standing on them: the baseline's at init, a champion's (its finalist's source copied)
// after the finals. The profile runs on a machine that checks and profiles without a GPU.
#include "kopt/loop/checked_variants.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "../profile/fake_profiled_gpu.hpp"
#include "kopt/core/files.hpp"
#include "kopt/profile/profiler.hpp"

namespace kopt::loop {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using profile::PassedCheck;

// A check as the lab keeps it, of `variant` as its file reads now (no check is run).
PassedCheck kept_check(const Variant& variant, const std::string& library_hash) {
  return {.source_hash = variant_source_hash(variant), .library_hash = library_hash};
}

Variant variant_at(const fs::path& kernel, const std::string& label, Defines defines, const std::string& source) {
  write_file_atomic(kernel, source);
  return {.label = label, .kernel = kernel, .defines = std::move(defines)};
}

class CheckedVariantsTest : public ::testing::Test {
 protected:
  TempDir dir{"checked-variants"};
  CheckedVariants checked;
};

TEST_F(CheckedVariantsTest, OnlyAVariantWhoseMeasurementPassedLendsItsCheck) {
  const Variant baseline = variant_at(dir.path() / "baseline.cu", "baseline", {}, "// baseline\n");
  const Variant branch = variant_at(dir.path() / "b1.cu", "iter1/b1", {{"BM", "64"}}, "// b1\n");
  checked.keep_passed({{baseline, kept_check(baseline, "lib-a")}, {branch, kept_check(branch, "lib-b")}},
                      {{.label = "baseline", .passed = true}, {.label = "iter1/b1", .passed = false, .failure = "faulted while timed"}});
  ASSERT_TRUE(checked.find(baseline).has_value());
  EXPECT_EQ(checked.find(baseline)->library_hash, "lib-a");
  EXPECT_FALSE(checked.find(branch).has_value());
}

TEST_F(CheckedVariantsTest, AChampionFindsTheCheckOfTheFinalistWhoseSourceItCopies) {
  const Variant finalist = variant_at(dir.path() / "iter1" / "b3" / "kernel.cu", "iter1/b3", {{"BM", "64"}}, "// b3\n");
  checked.keep_passed({{finalist, kept_check(finalist, "lib-b3")}}, {{.label = "iter1/b3", .passed = true}});
  const Variant champion = variant_at(dir.path() / "iter1" / "champion" / "kernel.cu", "iter1/champion", {{"BM", "64"}}, "// b3\n");
  ASSERT_TRUE(checked.find(champion).has_value());
  EXPECT_EQ(checked.find(champion)->library_hash, "lib-b3");

  Variant other_defines = champion;
  other_defines.defines = {{"BM", "128"}};
  EXPECT_FALSE(checked.find(other_defines).has_value());
  const Variant other_source = variant_at(dir.path() / "other.cu", "iter1/champion", {{"BM", "64"}}, "// b3, edited\n");
  EXPECT_FALSE(checked.find(other_source).has_value());
  const Variant missing{.label = "gone", .kernel = dir.path() / "gone.cu", .defines = {{"BM", "64"}}};
  EXPECT_FALSE(checked.find(missing).has_value());
}

TEST_F(CheckedVariantsTest, AVariantMeasuredAgainKeepsItsLatestCheck) {
  const Variant baseline = variant_at(dir.path() / "baseline.cu", "baseline", {}, "// baseline\n");
  checked.keep_passed({{baseline, kept_check(baseline, "first")}}, {{.label = "baseline", .passed = true}});
  checked.keep_passed({{baseline, kept_check(baseline, "second")}}, {{.label = "baseline", .passed = true}});
  EXPECT_EQ(checked.find(baseline)->library_hash, "second");
}

TEST_F(CheckedVariantsTest, EveryMeasurementAndTheProfileAskTheSameCheck) {
  const Variant variant{.label = "iter1/b1", .kernel = "k.cu", .defines = {{"BM", "64"}, {"BN", "32"}}};
  const verify::CheckOptions lab{.seed_count = 3, .defines = {{"KOPT_X", "1"}}};
  const verify::CheckOptions asked = variant_check_options(lab, variant);
  EXPECT_EQ(asked.seed_count, 3);
  EXPECT_EQ(asked.first_seed, 0u);
  EXPECT_EQ(asked.defines, (std::vector<std::pair<std::string, std::string>>{{"KOPT_X", "1"}, {"BM", "64"}, {"BN", "32"}}));
}

// What GpuLab does with them: its measurement's check (the lab's options with the variant's
// defines) kept as the measurement passed, then the champion's profile, on a copy of the
// finalist's source, handed the check its lookup finds. No check worker runs for the profile.
TEST_F(CheckedVariantsTest, TheChampionsProfileStandsOnItsFinalistsCheck) {
  profile::testing_support::FakeNcuOnPath ncu{dir.path() / "bin" / "ncu"};
  profile::testing_support::FakeProfiledGpu machine{ncu.path()};
  verify::CheckContext context{machine, dir.path() / "cache", {.executable = "/usr/bin/kopt"}};
  const spec::Problem finalist_problem = profile::testing_support::fake_problem(dir.path() / "iter1" / "b3");
  const fs::path spec_file = dir.path() / "iter1" / "b3" / "kopt.toml";
  const Variant finalist{.label = "iter1/b3", .kernel = finalist_problem.spec.kernel, .defines = {{"BM", "64"}}};
  const verify::CheckOptions lab{.seed_count = 2};

  const std::string source_hash = variant_source_hash(finalist);
  const verify::CheckOptions asked = variant_check_options(lab, finalist);
  const verify::CheckReport report = verify::run_check(finalist_problem, asked, context);
  ASSERT_TRUE(report.passed()) << report.cause();
  std::optional<PassedCheck> kept = profile::passed_check_of(report, asked, source_hash, context.worker.device);
  ASSERT_TRUE(kept.has_value());
  checked.keep_passed({{finalist, *kept}}, {{.label = "iter1/b3", .passed = true}});

  const Variant champion = variant_at(dir.path() / "iter1" / "champion" / "kernel.cu", "iter1/champion", finalist.defines,
                                      read_file(finalist.kernel));
  const spec::Problem champion_problem = spec::load_problem(champion.kernel, spec_file, {});
  machine.steps.clear();
  const profile::ProfileReport profiled = profile::run_profile(
      champion_problem,
      {.check = variant_check_options(lab, champion), .out_dir = dir.path() / "profile", .checked = checked.find(champion)},
      context);
  EXPECT_TRUE(profiled.check_reused) << profiled.check_reuse_refused;
  EXPECT_THAT(machine.steps, ElementsAre("profile"));
  ASSERT_EQ(machine.profile_jobs.size(), 1u);
  EXPECT_EQ(machine.profile_jobs[0].at("library"), report.build->library.string());
  EXPECT_EQ(profiled.check.kernel, champion.kernel);  // profile.json names the file profiled
}

}  // namespace
}  // namespace kopt::loop
