// run_profile standing on a check this process made (passed_check.hpp), on a machine that
// checks and profiles without a GPU: a reusable check starts no check worker and profiles its
// library; anything that differs from what the profile's own check would run is checked again.
#include "kopt/profile/passed_check.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>

#include "fake_profiled_gpu.hpp"
#include "kopt/core/files.hpp"
#include "kopt/core/hash.hpp"
#include "kopt/profile/profiler.hpp"

namespace kopt::profile {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing_support::FakeNcuOnPath;
using testing_support::FakeProfiledGpu;

class ProfileOnPassedCheck : public ::testing::Test {
 protected:
  // The loop's check: secret seeds (first_seed 0), as the profile's own would be.
  const verify::CheckOptions asked{.seed_count = 2};

  // A passing check of the kernel made here, as the lab keeps it; the machine's steps cleared.
  PassedCheck checked_now(const verify::CheckOptions& options) {
    const std::string source_hash = content_hash(read_file(problem.spec.kernel));
    const verify::CheckReport report = verify::run_check(problem, options, context);
    EXPECT_TRUE(report.passed()) << report.cause();
    std::optional<PassedCheck> kept = passed_check_of(report, options, source_hash, context.worker.device);
    EXPECT_TRUE(kept.has_value());
    machine.steps.clear();
    return *kept;
  }

  ProfileReport profile(std::optional<PassedCheck> checked, const verify::CheckOptions& options) {
    return run_profile(problem, {.check = options, .out_dir = dir.path() / "profile", .checked = std::move(checked)},
                       context);
  }

  bool checked_again() const { return std::ranges::find(machine.steps, "check") != machine.steps.end(); }

  TempDir dir{"profile-on-passed-check"};
  FakeNcuOnPath ncu{dir.path() / "bin" / "ncu"};
  FakeProfiledGpu machine{ncu.path()};
  verify::CheckContext context{machine, dir.path() / "cache", {.executable = "/usr/bin/kopt"}};
  spec::Problem problem = testing_support::fake_problem(dir.path() / "k");
};

TEST_F(ProfileOnPassedCheck, AReusableCheckStartsNoCheckWorkerAndItsLibraryIsProfiled) {
  const PassedCheck checked = checked_now(asked);
  const ProfileReport report = profile(checked, asked);
  EXPECT_TRUE(report.check_reused);
  EXPECT_EQ(report.check_reuse_refused, "");
  // No probe, no compile, no check worker: only the profiled worker ran.
  EXPECT_THAT(machine.steps, ElementsAre("profile"));
  ASSERT_EQ(machine.profile_jobs.size(), 1u);
  EXPECT_EQ(machine.profile_jobs[0].at("library"), checked.report.build->library.string());
  EXPECT_TRUE(report.check.passed());
  EXPECT_EQ(report.check.seeds, checked.report.seeds);  // the loop's seeds, not fresh ones
  EXPECT_TRUE(report.evidence()) << report.reason;
  const nlohmann::json written = profile_report_to_json(report);
  EXPECT_TRUE(written.at("check_reused").get<bool>());
  EXPECT_TRUE(written.at("passed_check").get<bool>());
  // Where the time went: every phase named, none negative, together no more than the whole.
  double phases = 0;
  for (const char* phase : {"check", "ncu_version", "ncu_run", "export_csv", "parse"}) {
    const double seconds = written.at("phase_seconds").at(phase).get<double>();
    EXPECT_GE(seconds, 0) << phase;
    phases += seconds;
  }
  EXPECT_LE(phases, written.at("wall_seconds").get<double>() + 1e-9);
}

TEST_F(ProfileOnPassedCheck, WithoutOneTheKernelIsCheckedFirstAsAlways) {
  const ProfileReport report = profile(std::nullopt, asked);
  EXPECT_FALSE(report.check_reused);
  EXPECT_EQ(report.check_reuse_refused, "");
  EXPECT_TRUE(checked_again());
  EXPECT_EQ(machine.steps.back(), "profile");
  EXPECT_TRUE(report.evidence()) << report.reason;
}

TEST_F(ProfileOnPassedCheck, AFailedCheckIsNotStoodOn) {
  PassedCheck failed = checked_now(asked);
  failed.report.failure = verify::KernelFailure{"fault", "an illegal address", ""};
  const ProfileReport report = profile(failed, asked);
  EXPECT_FALSE(report.check_reused);
  EXPECT_THAT(report.check_reuse_refused, HasSubstr("did not pass"));
  EXPECT_TRUE(checked_again());
  EXPECT_TRUE(report.check.passed());  // its own check: the kernel is right after all
}

TEST_F(ProfileOnPassedCheck, ACheckAskedOtherwiseIsNotStoodOn) {
  // A first look's: one fixed seed proves less than two secret ones.
  const PassedCheck first_look = checked_now({.seed_count = 1, .first_seed = 1234});
  ProfileReport report = profile(first_look, asked);
  EXPECT_THAT(report.check_reuse_refused, HasSubstr("other seeds, defines"));
  EXPECT_TRUE(checked_again());

  const PassedCheck without_define = checked_now(asked);
  verify::CheckOptions with_define = asked;
  with_define.defines = {{"TILE", "64"}};
  report = profile(without_define, with_define);
  EXPECT_THAT(report.check_reuse_refused, HasSubstr("other seeds, defines"));
  EXPECT_TRUE(checked_again());
}

TEST_F(ProfileOnPassedCheck, ACheckOnAnotherDeviceIsNotStoodOn) {
  PassedCheck elsewhere = checked_now(asked);
  elsewhere.device = 1;
  const ProfileReport report = profile(elsewhere, asked);
  EXPECT_THAT(report.check_reuse_refused, HasSubstr("another device"));
  EXPECT_TRUE(checked_again());
}

TEST_F(ProfileOnPassedCheck, ASourceChangedSinceItsCheckIsCheckedAgain) {
  const PassedCheck checked = checked_now(asked);
  write_file_atomic(problem.spec.kernel, read_file(problem.spec.kernel) + "// changed\n");
  const ProfileReport report = profile(checked, asked);
  EXPECT_THAT(report.check_reuse_refused, HasSubstr("source is not the one checked"));
  EXPECT_TRUE(checked_again());
  ASSERT_EQ(machine.profile_jobs.size(), 1u);
  EXPECT_NE(machine.profile_jobs[0].at("library"), checked.report.build->library.string());  // the new source's
}

TEST_F(ProfileOnPassedCheck, ALibraryRewrittenSinceItsCheckIsCheckedAgain) {
  const PassedCheck checked = checked_now(asked);
  write_file_atomic(checked.report.build->library, "ELF, patched");
  const ProfileReport report = profile(checked, asked);
  EXPECT_THAT(report.check_reuse_refused, HasSubstr("rewritten"));
  EXPECT_TRUE(checked_again());
}

TEST_F(ProfileOnPassedCheck, AHeaderChangedSinceItsCheckIsCheckedAgain) {
  write_file_atomic(problem.spec.kernel.parent_path() / "tile.cuh", "#define TILE 32\n");
  write_file_atomic(problem.spec.kernel, "#include \"tile.cuh\"\n" + read_file(problem.spec.kernel));
  const PassedCheck checked = checked_now(asked);
  write_file_atomic(problem.spec.kernel.parent_path() / "tile.cuh", "#define TILE 64\n");
  const ProfileReport report = profile(checked, asked);
  EXPECT_THAT(report.check_reuse_refused, HasSubstr("build another library"));
  EXPECT_TRUE(checked_again());
}

TEST_F(ProfileOnPassedCheck, ACheckOfAnotherCaseIsNotStoodOn) {
  const PassedCheck checked = checked_now(asked);
  // The same spec bound otherwise since (--dim n=4096 over every case).
  const spec::Problem other = spec::load_problem(problem.spec.kernel.parent_path(), std::nullopt, {{"n", std::int64_t{4096}}});
  const ProfileReport report =
      run_profile(other, {.check = asked, .out_dir = dir.path() / "profile", .checked = checked}, context);
  EXPECT_THAT(report.check_reuse_refused, HasSubstr("every case"));
  EXPECT_TRUE(checked_again());
}

}  // namespace
}  // namespace kopt::profile
