#include "kopt/report/run_comparison.hpp"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>


#include "kopt/core/error.hpp"
#include "kopt/core/files.hpp"
#include "kopt/report/html_report.hpp"
#include "kopt/report/run_summary.hpp"
#include "report_test_support.hpp"

namespace kopt::report {
namespace {
namespace fs = std::filesystem;
using json = nlohmann::json;
using ::testing::HasSubstr;

const fs::path kH200Run = fs::path(KOPT_FIXTURES_DIR) / "loop" / "h200_sgemm_tiled_run";

// The bars of the chart in the page's section `section_id`.
std::vector<double> bar_values(const std::string& html, const std::string& section_id) {
  return testing_support::bar_values(testing_support::section(html, section_id));
}

// Two copies of the real H200 run; B's are edited to make the two differ.
class RunComparison : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::make_unique<TempDir>("compare-test");
    for (const char* name : {"a", "b"}) fs::copy(kH200Run, dir_->path() / name, fs::copy_options::recursive);
  }
  loop::RunFolder run(const char* name) const { return loop::RunFolder(dir_->path() / name); }
  // B as if its tuner had ended on other tiles, 10 % slower than A.
  void make_b_differ() const {
    json state = loop::read_json(run("b").state_file());
    state["best"]["defines"].erase("MINB");
    state["best"]["defines"]["BK"] = "16";
    state["best"]["defines"]["SPLIT"] = "2";
    state["best_median_s"] = 1.1 * state["best_median_s"].get<double>();
    loop::write_json(run("b").state_file(), state);
  }
  std::unique_ptr<TempDir> dir_;
};

TEST_F(RunComparison, ShowsEachRunsNumbersAsItsSummaryDoes) {
  make_b_differ();
  const json c = compare_runs(run("a"), run("b"));
  EXPECT_EQ(c["schema"], "kopt.compare/1");
  const json a_summary = run_summary(run("a"));
  const json& a = c["runs"][0];
  EXPECT_EQ(a["name"], "A");
  EXPECT_EQ(a["device"], "NVIDIA H200");
  EXPECT_EQ(a["run"], fs::absolute(run("a").root()).lexically_normal().string());
  EXPECT_EQ(a["baseline_median_s"], a_summary["baseline_median_s"]);
  EXPECT_EQ(a["best_median_ci_s"], a_summary["best_median_ci_s"]);
  EXPECT_EQ(a["speedup_vs_baseline"], a_summary["speedup_vs_baseline"]);
  EXPECT_EQ(a["iterations"].size(), 4u);
  EXPECT_NEAR(c["final_time_ratio_b_over_a"].get<double>(), 1.1, 1e-12);
  // The Markdown repeats summary.md's numbers, written as it writes them.
  const std::string md = format_run_comparison(c);
  const std::string a_markdown = format_run_summary(a_summary);
  for (const json& time : {a_summary["baseline_median_s"], a_summary["best_median_s"]}) {
    EXPECT_THAT(md, HasSubstr(format_us(time)));
    EXPECT_THAT(a_markdown, HasSubstr(format_us(time)));
  }
  EXPECT_THAT(md, HasSubstr(fmt::format("| speedup vs baseline | {:.2f}× |", a_summary["speedup_vs_baseline"].get<double>())));
  EXPECT_THAT(md, HasSubstr("B's final time is 1.100× A's"));
  EXPECT_THAT(md, HasSubstr("no verdict"));
}

// The numbers checked against the run's own files and against values pinned here, not
// against run_summary(), which compare_runs() itself calls.
TEST_F(RunComparison, TakesItsNumbersFromTheRunsFiles) {
  const json state = loop::read_json(kH200Run / "state.json");
  const json champion = loop::read_json(kH200Run / "iter4" / "champion" / "bench.json");
  const json c = compare_runs(run("a"), run("b"));
  const json& a = c["runs"][0];
  EXPECT_EQ(a["baseline_median_s"].get<double>(), state["baseline_median_s"].get<double>());
  EXPECT_EQ(a["best_median_s"].get<double>(), state["best_median_s"].get<double>());
  EXPECT_EQ(a["best_median_ci_s"], champion["median_ci_s"]);
  EXPECT_DOUBLE_EQ(a["speedup_vs_baseline"].get<double>(),
                   state["baseline_median_s"].get<double>() / state["best_median_s"].get<double>());
  // The captured H200 run: 54153 µs → 3182 µs, 17.02×; identical runs give a ratio of 1.
  EXPECT_NEAR(a["baseline_median_s"].get<double>(), 54153.3e-6, 0.1e-6);
  EXPECT_NEAR(a["best_median_s"].get<double>(), 3181.66e-6, 0.01e-6);
  EXPECT_NEAR(a["speedup_vs_baseline"].get<double>(), 17.0204, 1e-4);
  EXPECT_EQ(c["final_time_ratio_b_over_a"].get<double>(), 1.0);
  const std::string md = format_run_comparison(c);
  EXPECT_THAT(md, HasSubstr("| speedup vs baseline | 17.02× | 17.02× |"));
  EXPECT_THAT(md, HasSubstr("B's final time is 1.000× A's"));
}

TEST_F(RunComparison, SetsTheChampionsConfigurationsSideBySide) {
  make_b_differ();
  const std::string md = format_run_comparison(compare_runs(run("a"), run("b")));
  EXPECT_THAT(md, HasSubstr("| kernel | iter4/champion/kernel.cu | iter4/champion/kernel.cu |"));
  EXPECT_THAT(md, HasSubstr("| BK | 32 | 16 |"));
  EXPECT_THAT(md, HasSubstr("| MINB | 2 | (default) |"));
  EXPECT_THAT(md, HasSubstr("| SPLIT | (default) | 2 |"));
  EXPECT_THAT(md, HasSubstr("| 3 | 15.94× (no_gain) | 15.94× (no_gain) |"));
}

TEST_F(RunComparison, ChartsBothRunsSpeedupsAndTimesFromTheComparison) {
  make_b_differ();
  const json c = write_run_comparison(run("a"), run("b"), dir_->path() / "out" / "nested");
  for (const char* file : {"compare.json", "compare.md", "compare.html"}) {
    EXPECT_TRUE(fs::exists(dir_->path() / "out" / "nested" / file)) << file;
  }
  EXPECT_EQ(loop::read_json(dir_->path() / "out" / "nested" / "compare.json"), c);
  const std::string html = read_file(dir_->path() / "out" / "nested" / "compare.html");
  // Four iterations of each run, A's and B's bars of one iteration side by side.
  const std::vector<double> speedups = bar_values(html, "speedup");
  ASSERT_EQ(speedups.size(), 8u);
  EXPECT_EQ(speedups[0], c["runs"][0]["iterations"][0]["speedup_vs_baseline"].get<double>());
  EXPECT_EQ(speedups[7], c["runs"][1]["iterations"][3]["speedup_vs_baseline"].get<double>());
  // Each run's final and baseline medians, in µs.
  const std::vector<double> times = bar_values(html, "final");
  ASSERT_EQ(times.size(), 4u);
  EXPECT_DOUBLE_EQ(times[0], c["runs"][0]["best_median_s"].get<double>() * 1e6);
  EXPECT_DOUBLE_EQ(times[2], c["runs"][1]["best_median_s"].get<double>() * 1e6);
  EXPECT_THAT(html, HasSubstr("class=\"legend\""));
  EXPECT_THAT(html, HasSubstr("together with <code>kopt compare</code>."));
  EXPECT_EQ(html.find("<script"), std::string::npos);
}

TEST_F(RunComparison, RefusesAFolderThatIsNotARun) {
  try {
    compare_runs(run("a"), loop::RunFolder(dir_->path() / "nothing"));
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::bad_input);
    EXPECT_THAT(e.what(), HasSubstr("nothing: not a kopt run"));
  }
}

TEST_F(RunComparison, RefusesARunWithNoClosedIteration) {
  for (int i = 1; i <= 4; ++i) fs::remove(run("b").iteration(i) / "iteration.json");
  try {
    compare_runs(run("a"), run("b"));
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::bad_input);
    EXPECT_THAT(e.what(), HasSubstr("b: no iteration has closed yet, so there is nothing to compare"));
  }
}

}  // namespace
}  // namespace kopt::report
