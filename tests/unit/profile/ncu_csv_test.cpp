#include "kopt/profile/ncu_csv.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "kopt/core/files.hpp"
#include "profile_test_support.hpp"

namespace kopt::profile {
namespace {

using testing_support::fixture;

bool contains(const std::vector<std::string>& lines, std::string_view line) {
  return std::ranges::find(lines, line) != lines.end();
}

// `ncu --set full --csv --page raw --print-units base` of `kopt check` on vector_add,
// ncu 2025.3.1 on an H200: one launch, 2238 columns, program output around the table.
TEST(NcuRawCsv, ReadsTheOneLaunchOfARealVectorAddReport) {
  NcuReport report = parse_ncu_raw_csv(fixture("vector_add"));
  ASSERT_EQ(report.launches.size(), 1u);
  const KernelLaunch& launch = report.launches[0];
  EXPECT_EQ(launch.id, 0);
  EXPECT_EQ(launch.kernel_name, "vector_add_kernel(const float *, const float *, float *, int)");
  EXPECT_EQ(launch.grid, (Dim3{262144, 1, 1}));
  EXPECT_EQ(launch.block, (Dim3{256, 1, 1}));
  EXPECT_EQ(launch.metrics.size(), 2238u);
  const MetricValue* duration = launch.find("gpu__time_duration.sum");
  ASSERT_NE(duration, nullptr);
  EXPECT_TRUE(duration->present);
  EXPECT_EQ(duration->value, 236064);
  EXPECT_EQ(duration->unit, "ns");
}

TEST(NcuRawCsv, ReadsThousandsSeparatorsAndTheUnitsRowOfARealSgemmReport) {
  NcuReport report = parse_ncu_raw_csv(fixture("sgemm_naive"));
  ASSERT_EQ(report.launches.size(), 1u);
  const KernelLaunch& launch = report.launches[0];
  EXPECT_EQ(launch.kernel_name, "sgemm_naive_kernel(const float *, const float *, float *, int, int, int)");
  EXPECT_EQ(launch.grid, (Dim3{256, 256, 1}));
  EXPECT_EQ(launch.block, (Dim3{16, 16, 1}));
  EXPECT_EQ(launch.find("gpu__time_duration.sum")->value, 25728192);
  EXPECT_EQ(launch.find("dram__bytes_read.sum")->value, 6987695104.0);
  EXPECT_EQ(launch.find("dram__bytes_read.sum")->unit, "byte");
  EXPECT_DOUBLE_EQ(launch.find("sm__throughput.avg.pct_of_peak_sustained_elapsed")->value, 63.99);
  EXPECT_EQ(launch.find("sm__throughput.avg.pct_of_peak_sustained_elapsed")->unit, "%");
}

TEST(NcuRawCsv, MarksEmptyNanAndTextCellsAsNotPresentNeverZero) {
  const KernelLaunch launch = parse_ncu_raw_csv(fixture("vector_add")).launches.at(0);
  for (const char* name : {"SM_B.TriageCompute.l1tex__t_sector_hit_rate.pct",  // empty: not collected
                           "derived_tempMetric4",                                // "nan"
                           "sass__inst_executed_register_spilling_mem_local",    // "no data"
                           "Kernel Name"}) {
    const MetricValue* cell = launch.find(name);
    ASSERT_NE(cell, nullptr) << name;
    EXPECT_FALSE(cell->present) << name;
  }
  EXPECT_EQ(launch.find("derived_tempMetric4")->text, "nan");
  EXPECT_EQ(launch.find("no_such_metric"), nullptr);
}

TEST(NcuRawCsv, SeparatesToolMessagesFromTheProgramsOwnOutput) {
  NcuReport report = parse_ncu_raw_csv(fixture("vector_add"));
  EXPECT_EQ(report.tool_messages.size(), 6u);
  EXPECT_TRUE(report.tool_messages[0].starts_with("==WARNING== Note: Running with unmodified GPU clocks"));
  EXPECT_EQ(report.unparsed.size(), 9u);
  EXPECT_TRUE(contains(report.unparsed, "kopt check /work/main/examples/vector_add/vector_add.cu"));
  EXPECT_TRUE(contains(report.unparsed, "PASS: 2 runs on 2 cases"));
}

constexpr std::string_view kTwoLaunches =
    "\"ID\",\"Kernel Name\",\"Grid Size\",\"Block Size\",\"m.sum\",\"t.pct\"\r\n"
    "\"\",\"\",\"\",\"\",\"byte\",\"%\"\r\n"
    "\"0\",\"k(int)\",\"(4, 2, 1)\",\"(32, 1, 1)\",\"1,024\",\"\"\r\n"
    "kernel says hello, world\r\n"
    "\"1\",\"k2\",\"(1, 1, 1)\",\"(64, 1, 1)\",\"2\"\r\n"
    "\"2\",\"k3<float>(float*)\",\"(1, 1, 1)\",\"(64, 1, 1)\",\"3\",\"12.5\"\r\n";

TEST(NcuRawCsv, ReadsSeveralLaunchesAndListsRowsOfTheWrongWidth) {
  NcuReport report = parse_ncu_raw_csv(kTwoLaunches);
  ASSERT_EQ(report.launches.size(), 2u);
  EXPECT_EQ(report.launches[0].grid, (Dim3{4, 2, 1}));
  EXPECT_EQ(report.launches[0].find("m.sum")->value, 1024);
  EXPECT_FALSE(report.launches[0].find("t.pct")->present);
  EXPECT_EQ(report.launches[1].id, 2);
  EXPECT_EQ(report.launches[1].kernel_name, "k3<float>(float*)");
  EXPECT_EQ(report.launches[1].find("t.pct")->value, 12.5);
  EXPECT_EQ(report.unparsed, (std::vector<std::string>{"kernel says hello, world",
                                                       "\"1\",\"k2\",\"(1, 1, 1)\",\"(64, 1, 1)\",\"2\""}));
}

TEST(NcuRawCsv, GivesNoLaunchesForTextWithoutATable) {
  NcuReport report = parse_ncu_raw_csv("==ERROR== the application returned an error\n\"a\",\"b\"\n");
  EXPECT_TRUE(report.launches.empty());
  EXPECT_EQ(report.tool_messages.size(), 1u);
  EXPECT_EQ(report.unparsed, (std::vector<std::string>{"\"a\",\"b\""}));
}

TEST(NcuNumber, ReadsNumbersAsNcuPrintsThem) {
  EXPECT_EQ(parse_ncu_number("25,728,192"), 25728192.0);
  EXPECT_EQ(parse_ncu_number("0.69"), 0.69);
  EXPECT_EQ(parse_ncu_number("-3"), -3.0);
  EXPECT_EQ(parse_ncu_number("1e+06"), 1e6);
}

TEST(NcuNumber, RejectsEverythingThatIsNotAFiniteNumber) {
  for (const char* cell : {"", "nan", "inf", "n/a", "no data", "(256, 1, 1)", "1.2.3", ",", "12 ms"}) {
    EXPECT_FALSE(parse_ncu_number(cell)) << cell;
  }
}

TEST(NcuDim3, ReadsATripleAndRejectsAnythingElse) {
  EXPECT_EQ(parse_ncu_dim3("(262144, 1, 1)"), (Dim3{262144, 1, 1}));
  EXPECT_FALSE(parse_ncu_dim3("(1, 2)"));
  EXPECT_FALSE(parse_ncu_dim3("256"));
  EXPECT_FALSE(parse_ncu_dim3("(a, 1, 1)"));
}

}  // namespace
}  // namespace kopt::profile
