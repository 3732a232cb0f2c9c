#include "kopt/profile/profiler.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "kopt/core/files.hpp"
#include "profile_test_support.hpp"

namespace kopt::profile {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

using testing_support::fixture;

ProfileReport h200_report(const std::string& ncu_version = "2025.3.1") {
  ProfileReport report;
  report.ncu_version = ncu_version;
  report.arch = "sm_90a";  // the map is per family: sm_90a reads sm_90's
  return report;
}

TEST(ReadRawPage, OneLaunchBecomesTheWholeCall) {
  ProfileReport report = h200_report();
  read_raw_page(report, fixture("sgemm_naive"), 5);
  ASSERT_FALSE(report.degraded) << report.reason;
  ASSERT_EQ(report.launches.size(), 1u);
  const ProfiledLaunch& launch = report.launches.front();
  EXPECT_THAT(launch.launch.kernel_name, StartsWith("sgemm_naive"));
  EXPECT_GT(launch.concepts.duration_s, 0);
  EXPECT_DOUBLE_EQ(launch.share, 1.0);
  ASSERT_TRUE(report.whole.has_value());
  EXPECT_DOUBLE_EQ(report.whole->duration_s, launch.concepts.duration_s);
  EXPECT_EQ(report.dominant(), &launch);
}

TEST(ReadRawPage, ProfileJsonCarriesEveryConceptAndNoneIsReadAsZeroWhenMissing) {
  ProfileReport report = h200_report();
  read_raw_page(report, fixture("vector_add"), 3);
  const nlohmann::json document = profile_report_to_json(report);
  EXPECT_EQ(document["schema"], "kopt.profile/1");
  ASSERT_EQ(document["kernels"].size(), 1u);
  const nlohmann::json& concepts = document["whole"]["concepts"];
  EXPECT_EQ(concepts.size(), report.map->concepts.size());
  for (const auto& [name, c] : concepts.items()) {
    if (c["value"].is_null()) {
      EXPECT_FALSE(c["missing"].empty()) << name << " is null but names no missing metric";
    }
  }
  EXPECT_GT(concepts["dram_throughput"]["value"].get<double>(), 0.5);  // vector add streams memory
}

TEST(ReadRawPage, NcuTopNamesTheKernelAndRanksEachAxis) {
  ProfileReport report = h200_report();
  read_raw_page(report, fixture("sgemm_naive"), 3);
  const nlohmann::json top = ncu_top_document(report);
  EXPECT_EQ(top["schema"], "kopt.ncu_top/1");
  EXPECT_THAT(top["kernel"].get<std::string>(), StartsWith("sgemm_naive"));
  for (const char* axis : {"compute", "memory", "latency"}) {
    ASSERT_TRUE(top["axes"].contains(axis)) << axis;
    EXPECT_LE(top["axes"][axis].size(), 3u);
  }
  EXPECT_EQ(top["launches"].size(), 1u);
}

// A real report of a solve that launches two kernels (tests/gpu/kernels/two_kernels, captured
// by kopt profile on the H200): each launch is reported with its share, and the whole is
// their combination.
TEST(ReadRawPage, TwoLaunchesAreEachReportedAndCombined) {
  ProfileReport report = h200_report();
  read_raw_page(report, fixture("two_kernels"), 5);
  ASSERT_FALSE(report.degraded) << report.reason;
  ASSERT_EQ(report.launches.size(), 2u);
  EXPECT_THAT(report.launches[0].launch.kernel_name, StartsWith("copy_first"));
  EXPECT_THAT(report.launches[1].launch.kernel_name, StartsWith("add_second"));
  const double d0 = report.launches[0].concepts.duration_s, d1 = report.launches[1].concepts.duration_s;
  ASSERT_TRUE(report.whole.has_value());
  EXPECT_DOUBLE_EQ(report.whole->duration_s, d0 + d1);
  EXPECT_DOUBLE_EQ(report.launches[0].share + report.launches[1].share, 1.0);
  EXPECT_EQ(report.dominant(), &report.launches[1]);  // the add reads twice as much
  // A throughput of the whole call is the time-weighted mean of the launches'.
  auto value = [](const LaunchConcepts& l, const char* name) { return *l.concepts.at(name).value; };
  const double weighted = (value(report.launches[0].concepts, "dram_throughput") * d0 +
                           value(report.launches[1].concepts, "dram_throughput") * d1) / (d0 + d1);
  EXPECT_NEAR(*report.whole->values.at("dram_throughput"), weighted, 1e-12);
  EXPECT_EQ(ncu_top_document(report)["launches"].size(), 2u);
}

TEST(ReadRawPage, AnUnknownNcuVersionDegradesTheProfileAndSaysWhy) {
  ProfileReport report = h200_report("2019.1.0");
  read_raw_page(report, fixture("sgemm_naive"), 5);
  EXPECT_TRUE(report.degraded);
  EXPECT_THAT(report.reason, HasSubstr("no metric map for Nsight Compute 2019.1.0 on sm_90"));
  EXPECT_FALSE(report.whole.has_value());
  EXPECT_TRUE(profile_report_to_json(report)["degraded"].get<bool>());
}

TEST(ReadRawPage, AReportWithoutLaunchesIsDegraded) {
  ProfileReport report = h200_report();
  read_raw_page(report, "==PROF== Disconnected from process 1\n", 5);
  EXPECT_TRUE(report.degraded);
  EXPECT_THAT(report.reason, HasSubstr("no kernel launch"));
}

}  // namespace
}  // namespace kopt::profile
