#include "kopt/roofline/kernel_roofline.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "kopt/core/error.hpp"
#include "kopt/core/files.hpp"
#include "kopt/profile/launch_aggregate.hpp"
#include "kopt/profile/metric_map.hpp"
#include "kopt/profile/ncu_csv.hpp"

namespace kopt::roofline {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

// kernel_roofline on a fake GPU: the profile, the timing and the ceilings answer from what the
// test sets, and count how often each was asked. `kopt roofline` and the loop's profile step
// both run exactly this function; only the probes differ (roofline::gpu_probes there).
class KernelRooflineTest : public ::testing::Test {
 protected:
  TempDir dir{"kernel-roofline-test"};
  spec::Problem problem = spec::load_problem(fs::path(KOPT_SOURCE_DIR) / "examples/sgemm_naive", std::nullopt, {});
  profile::ProfileReport answer;  // what the profiler gives
  std::optional<measure::DevicePeaks> peaks = measure::datasheet_peaks("NVIDIA H200");
  int profiles = 0, timings = 0;
  std::optional<verify::CheckReport> timed_on;  // the check the last timing was handed, if any
  verify::CheckOptions timed_with;              // the check options it was asked
  RooflineProbes probes{
      .profile = [this](const spec::Problem&, const profile::ProfileOptions&) {
        ++profiles;
        return answer;
      },
      .time = [this](const spec::Problem& one_case, const verify::CheckOptions& check, const verify::CheckReport* checked) {
        ++timings;
        EXPECT_EQ(one_case.cases.size(), 1u);
        timed_with = check;
        timed_on = checked != nullptr ? std::optional(*checked) : std::nullopt;
        return std::pair{1e-3, nlohmann::json{{"name", "NVIDIA H200"}}};
      },
      .peaks = [this](const nlohmann::json&) { return peaks; }};

  void SetUp() override { answer.check.runs = {{.case_name = "default"}}; }  // the check passed

  KernelRooflineRequest request(bool analytic = false) {
    return {.problem = problem, .profile = {.check = {.seed_count = 4}, .out_dir = dir.path() / "profile"}, .analytic = analytic};
  }
};

// The CLI's fallback, now the loop's too: without counters, the spec's work over the time.
TEST_F(KernelRooflineTest, WithoutCountersTheAnalyticRooflineSaysWhy) {
  answer.degraded = true;
  answer.reason = "ncu not found";
  const KernelRoofline result = kernel_roofline(request(), probes);
  ASSERT_TRUE(result.analysis);
  EXPECT_TRUE(result.analysis->degraded);
  EXPECT_EQ(result.analysis->reason, "ncu not found");
  EXPECT_EQ(profiles, 1);
  EXPECT_EQ(timings, 1);
  const nlohmann::json written = nlohmann::json::parse(read_file(dir.path() / "profile" / "roofline.json"));
  EXPECT_TRUE(written.at("degraded").get<bool>());
  EXPECT_TRUE(fs::exists(dir.path() / "profile" / "profile.json"));
}

// The profile's check passed just before (its own, or the loop's it stood on): the timing is
// handed it with the profile's check options, and checks nothing again.
TEST_F(KernelRooflineTest, TheAnalyticTimingStandsOnTheProfilesCheck) {
  answer.degraded = true;
  answer.reason = "ncu may not read the GPU's performance counters";
  answer.check.seeds = {11, 12, 13, 14};
  kernel_roofline(request(), probes);
  ASSERT_EQ(timings, 1);
  ASSERT_TRUE(timed_on.has_value());
  EXPECT_EQ(timed_on->seeds, answer.check.seeds);
  EXPECT_EQ(timed_with.seed_count, 4);
}

TEST_F(KernelRooflineTest, AnalyticSkipsTheProfiler) {
  const KernelRoofline result = kernel_roofline(request(true), probes);
  EXPECT_FALSE(timed_on.has_value());  // no profile, no check: the timing checks the kernel
  EXPECT_EQ(timed_with.seed_count, 4);
  EXPECT_EQ(profiles, 0);
  EXPECT_FALSE(result.profile);
  ASSERT_TRUE(result.analysis);
  EXPECT_THAT(*result.analysis->reason, HasSubstr("--analytic"));
}

TEST_F(KernelRooflineTest, WithCountersNothingIsTimed) {
  const profile::MetricMap map = *profile::load_metric_map("2025.3.1", "sm_90");
  const profile::NcuReport ncu = profile::parse_ncu_raw_csv(
      read_file(std::string(KOPT_FIXTURES_DIR) + "/ncu/ncu2025.3.1_h200_sm90_raw_vector_add.csv"));
  answer.whole = profile::aggregate_launches(map, {profile::launch_concepts(map, ncu.launches.at(0))});
  answer.check.device = {{"name", "NVIDIA H200"}};
  const KernelRoofline result = kernel_roofline(request(), probes);
  ASSERT_TRUE(result.analysis);
  EXPECT_FALSE(result.analysis->degraded);
  EXPECT_EQ(timings, 0);
}

TEST_F(KernelRooflineTest, AKernelThatFailsHasNoRoofline) {
  answer.failure = "illegal memory access";
  const KernelRoofline result = kernel_roofline(request(), probes);
  EXPECT_FALSE(result.analysis);
  EXPECT_EQ(timings, 0);
  EXPECT_FALSE(fs::exists(dir.path() / "profile" / "roofline.json"));
}

TEST_F(KernelRooflineTest, NoKnownCeilingsIsAnEnvironmentError) {
  peaks.reset();
  try {
    kernel_roofline(request(true), probes);
    FAIL() << "expected an environment error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::environment);
    EXPECT_THAT(e.what(), HasSubstr("kopt doctor --peaks"));
  }
}

TEST_F(KernelRooflineTest, TheAnalyticRooflineNeedsWorkFormulas) {
  problem.spec.work = {};
  try {
    kernel_roofline(request(true), probes);
    FAIL() << "expected a bad-input error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::bad_input);
    EXPECT_THAT(e.what(), HasSubstr("[work]"));
  }
  EXPECT_EQ(timings, 0);
}

}  // namespace
}  // namespace kopt::roofline
