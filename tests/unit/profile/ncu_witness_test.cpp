#include "kopt/profile/ncu_witness.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sstream>

#include "kopt/core/files.hpp"
#include "kopt/profile/nsight_compute.hpp"

namespace kopt::profile {
namespace {

using ::testing::HasSubstr;

const NcuWitnessRule kRule{.noise_fraction = 0.10, .noise_seconds = 5e-6, .calls = 5};

// The raw page ncu 2025.3.1 exported on the H200 for one call of a solve that launches two
// kernels (copy_first 4,704 ns, add_second 5,120 ns).
std::string two_kernels_export() {
  return read_file(std::string(KOPT_FIXTURES_DIR) + "/ncu/ncu2025.3.1_h200_sm90_raw_two_kernels.csv");
}

// The same export as if `calls` calls had been profiled: its launch rows repeated.
std::string repeated_calls(const std::string& csv, int calls) {
  std::istringstream in(csv);
  std::string header, units, rows;
  std::getline(in, header);
  std::getline(in, units);
  for (std::string line; std::getline(in, line);) rows += line + "\n";
  std::string out = header + "\n" + units + "\n";
  for (int i = 0; i < calls; ++i) out += rows;
  return out;
}

TEST(NcuCallSeconds, SumsTheKernelsOfEachCallFromARealExport) {
  const NcuCallTimes one = ncu_call_seconds(parse_ncu_raw_csv(two_kernels_export()), 1);
  ASSERT_TRUE(one.error.empty()) << one.error;
  ASSERT_EQ(one.seconds.size(), 1U);
  EXPECT_NEAR(one.seconds[0], (4704 + 5120) * 1e-9, 1e-15);

  const NcuCallTimes five = ncu_call_seconds(parse_ncu_raw_csv(repeated_calls(two_kernels_export(), 5)), 5);
  ASSERT_TRUE(five.error.empty()) << five.error;
  ASSERT_EQ(five.seconds.size(), 5U);
  for (double s : five.seconds) EXPECT_NEAR(s, 9824e-9, 1e-15);
}

TEST(NcuCallSeconds, SaysWhenTheLaunchesCannotBeSplitIntoCalls) {
  EXPECT_THAT(ncu_call_seconds(parse_ncu_raw_csv(two_kernels_export()), 3).error,
              HasSubstr("2 kernel launches cannot be split into 3 equal calls"));
  EXPECT_THAT(ncu_call_seconds(NcuReport{}, 1).error, HasSubstr("0 kernel launches"));
}

TEST(NcuCallSeconds, SaysWhenALaunchHasNoDuration) {
  NcuReport report = parse_ncu_raw_csv(two_kernels_export());
  report.launches[1].metrics.erase(std::string(kNcuTimeMetric));
  EXPECT_THAT(ncu_call_seconds(report, 1).error, HasSubstr("has no gpu__time_duration.sum"));
}

TEST(NcuDisagrees, OnlyWhenNcuExceedsKoptBeyondTheNoise) {
  EXPECT_TRUE(ncu_disagrees(200e-6, 80e-6, kRule));    // kopt's samples at 0.4x: forged
  EXPECT_FALSE(ncu_disagrees(200e-6, 185e-6, kRule));  // 15 µs < 10 % of 200 µs
  EXPECT_TRUE(ncu_disagrees(200e-6, 175e-6, kRule));   // 25 µs > 20 µs
  EXPECT_FALSE(ncu_disagrees(10e-6, 6e-6, kRule));     // 4 µs < the absolute 5 µs
  // One-sided: kopt's time per call holds launch gaps ncu does not see.
  EXPECT_FALSE(ncu_disagrees(200e-6, 900e-6, kRule));
}

TEST(JudgeNcuWitness, AnHonestMedianAgreesAndAForgedOneIsFlagged) {
  const NcuReport report = parse_ncu_raw_csv(repeated_calls(two_kernels_export(), 5));
  NcuTimeWitness honest{.label = "two_kernels.cu", .case_name = "default", .kopt_median_seconds = 14e-6};
  judge_ncu_witness(honest, report, kRule);
  EXPECT_FALSE(honest.disagrees);
  EXPECT_NEAR(honest.ncu_median_seconds, 9824e-9, 1e-15);
  EXPECT_FALSE(ncu_witness_flag(honest, kRule).has_value());

  NcuTimeWitness forged{.label = "two_kernels.cu", .case_name = "default", .kopt_median_seconds = 3.9e-6};
  judge_ncu_witness(forged, report, kRule);
  ASSERT_TRUE(forged.disagrees);
  const std::optional<std::string> flag = ncu_witness_flag(forged, kRule);
  ASSERT_TRUE(flag.has_value());
  EXPECT_THAT(*flag, HasSubstr("two_kernels.cu (case default): Nsight Compute timed its kernels at 9.8 µs per call"));
  EXPECT_THAT(*flag, HasSubstr("kopt's median of 3.9 µs"));
}

// An honest solve on the same inputs launches the same kernels each call: launches that do not
// split into equal calls (or none at all) mean solve behaved otherwise under the profiler, and
// a kernel cannot dodge the witness that way.
TEST(JudgeNcuWitness, AReportThatCannotBeSplitIsAFlagNotUnavailable) {
  NcuTimeWitness w{.label = "k.cu", .case_name = "default", .kopt_median_seconds = 1e-6};
  judge_ncu_witness(w, parse_ncu_raw_csv(two_kernels_export()), kRule);  // 2 launches, 5 calls
  EXPECT_TRUE(w.unavailable.empty());
  EXPECT_THAT(w.failure, HasSubstr("cannot be split"));
  EXPECT_THAT(ncu_witness_flag(w, kRule).value_or(""), HasSubstr("solve failed under Nsight Compute"));

  NcuTimeWitness none{.kopt_median_seconds = 1e-6};
  judge_ncu_witness(none, NcuReport{}, kRule);
  EXPECT_THAT(none.failure, HasSubstr("0 kernel launches"));
}

// A launch without the duration is ncu's gap, not the kernel's: unwitnessed, said as a warning.
TEST(JudgeNcuWitness, ALaunchWithoutItsDurationIsUnavailable) {
  NcuReport report = parse_ncu_raw_csv(two_kernels_export());
  report.launches[1].metrics.erase(std::string(kNcuTimeMetric));
  NcuTimeWitness w{.kopt_median_seconds = 1e-6};
  judge_ncu_witness(w, report, NcuWitnessRule{.noise_fraction = 0.1, .noise_seconds = 5e-6, .calls = 1});
  EXPECT_THAT(w.unavailable, HasSubstr("has no gpu__time_duration.sum"));
  EXPECT_TRUE(w.failure.empty());
}

TEST(NcuWitnessFlag, SolveFailingUnderNcuIsAFlag) {
  const NcuTimeWitness w{.label = "k.cu", .case_name = "default", .failure = "the worker exited with status 1"};
  EXPECT_THAT(ncu_witness_flag(w, kRule).value_or(""), HasSubstr("solve failed under Nsight Compute"));
}

TEST(NcuWitnessRule, IsReadFromTheDataFile) {
  const NcuWitnessRule& rule = ncu_witness_rule();
  EXPECT_DOUBLE_EQ(rule.noise_fraction, 0.10);
  EXPECT_DOUBLE_EQ(rule.noise_seconds, 5e-6);
  EXPECT_EQ(rule.calls, 5);
}

TEST(NcuWitnessCommand, ProfilesOnlyTheDurationAtTheClocksANormalRunSees) {
  const std::vector<std::string> words =
      ncu_command_prefix("/opt/ncu", {.section_set = "", .cache_control = "none", .import_source = false,
                                      .metrics = {std::string(kNcuTimeMetric)}},
                         "/tmp/w.ncu-rep");
  const std::string line = [&] {
    std::string joined;
    for (const std::string& w : words) joined += w + " ";
    return joined;
  }();
  EXPECT_THAT(line, HasSubstr("--clock-control none"));
  EXPECT_THAT(line, HasSubstr("--cache-control none"));
  EXPECT_THAT(line, HasSubstr("--metrics gpu__time_duration.sum"));
  EXPECT_THAT(line, ::testing::Not(HasSubstr("--set")));
}

}  // namespace
}  // namespace kopt::profile
