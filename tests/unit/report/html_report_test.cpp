#include "kopt/report/html_report.hpp"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <regex>

#include "kopt/core/files.hpp"
#include "kopt/report/run_summary.hpp"
#include "report_test_support.hpp"

namespace kopt::report {
namespace {
namespace fs = std::filesystem;
using json = nlohmann::json;

// The real run of kopt optimize on the tiled SGEMM (docs/results.md), copied so that the
// report can be written beside it.
class HtmlReport : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::make_unique<TempDir>("report-test");
    fs::copy(fs::path(KOPT_FIXTURES_DIR) / "loop" / "h200_sgemm_tiled_run", dir_->path() / "run",
             fs::copy_options::recursive);
    // The run was made on the GPU machine: point it at this checkout's example.
    json state = loop::read_json(run().state_file());
    const fs::path example = fs::path(KOPT_SOURCE_DIR) / "examples" / "sgemm_tiled";
    state["kernel"] = (example / "sgemm_tiled.cu").string();
    state["spec"] = (example / "kopt.toml").string();
    loop::write_json(run().state_file(), state);
  }
  loop::RunFolder run() const { return loop::RunFolder(dir_->path() / "run"); }
  std::unique_ptr<TempDir> dir_;
};

using testing_support::bar_values;
using testing_support::section;

TEST_F(HtmlReport, EveryChartIsDrawnFromTheSummarysNumbers) {
  const json summary = write_html_report(run());
  const std::string html = read_file(run().root() / "report.html");
  for (const char* id : {"roofline", "speedup", "gaps", "methods", "medians", "samples"}) {
    EXPECT_NE(section(html, id).find("<svg"), std::string::npos) << id;
  }
  // The fixture kept no per-sample file: the distribution chart says so, in one line.
  EXPECT_THAT(section(html, "samples"),
              ::testing::HasSubstr("Samples not available — baseline: no baseline/baseline_bench.json; "
                                   "best (iter4/champion): no iter4/finals_bench.json"));
  // The speedup bars are the summary's: the last one is the headline of summary.md.
  const std::vector<double> speedups = bar_values(section(html, "speedup"));
  ASSERT_EQ(speedups.size(), 4u);
  EXPECT_NEAR(speedups.back(), summary["speedup_vs_baseline"].get<double>(), 1e-9);
  const std::string markdown = read_file(run().root() / "summary.md");
  EXPECT_THAT(markdown, ::testing::HasSubstr(fmt::format("**{:.2f}× faster than the baseline**", speedups.back())));
  // One method bar per ablated method of the ledger, each the ratio summary.md prints.
  const std::vector<double> ratios = bar_values(section(html, "methods"));
  ASSERT_EQ(ratios.size(), 15u);
  EXPECT_THAT(markdown, ::testing::HasSubstr(fmt::format("{:.3f} [", ratios.front())));
  // The roofline holds the baseline, the three champions and the branches that lost.
  const json charts = report_charts(summary);
  EXPECT_EQ(charts["roofline"]["points"].size(), 1 + 3 + summary["frontier"].size());
}

TEST_F(HtmlReport, IsSelfContained) {
  write_html_report(run());
  const std::string html = read_file(run().root() / "report.html");
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("<link"), std::string::npos);
  EXPECT_EQ(html.find("src="), std::string::npos);
  // The only URL is the SVG namespace.
  const std::regex url("https?://[^\"]+");
  for (auto it = std::sregex_iterator(html.begin(), html.end(), url); it != std::sregex_iterator(); ++it) {
    EXPECT_EQ(it->str(), "http://www.w3.org/2000/svg");
  }
}

}  // namespace
}  // namespace kopt::report
