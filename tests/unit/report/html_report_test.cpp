#include "kopt/report/html_report.hpp"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <regex>

#include "kopt/core/files.hpp"
#include "kopt/report/run_comparison.hpp"
#include "kopt/report/run_summary.hpp"
#include "kopt/report/svg_text.hpp"
#include "report_test_support.hpp"

namespace kopt::report {
namespace {
namespace fs = std::filesystem;
using json = nlohmann::json;

// A real H200 run of kopt optimize, copied so that the report can be written beside it, and
// pointed at this checkout's example (the run was made on the GPU machine).
std::unique_ptr<TempDir> copy_fixture_run(const std::string& fixture, const std::string& example) {
  auto dir = std::make_unique<TempDir>("report-test");
  fs::copy(fs::path(KOPT_FIXTURES_DIR) / "loop" / fixture, dir->path() / "run", fs::copy_options::recursive);
  const loop::RunFolder run(dir->path() / "run");
  json state = loop::read_json(run.state_file());
  const fs::path source = fs::path(KOPT_SOURCE_DIR) / "examples" / example;
  state["kernel"] = (source / (example + ".cu")).string();
  state["spec"] = (source / "kopt.toml").string();
  loop::write_json(run.state_file(), state);
  return dir;
}

// The tiled SGEMM's run (docs/results.md).
class HtmlReport : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = copy_fixture_run("h200_sgemm_tiled_run", "sgemm_tiled"); }
  loop::RunFolder run() const { return loop::RunFolder(dir_->path() / "run"); }
  std::unique_ptr<TempDir> dir_;
};

using testing_support::bar_values;
using testing_support::section;

// The headline's speedup is over a baseline that is slow by design: beside it, where the best
// stands against the roofline's ceilings and the reference, on the page and in summary.md.
// The frontier speaks in speedups as the iterations table does, and no cell breaks a token.
TEST_F(HtmlReport, TheHeadlineSaysWhereTheBestStandsAndTheFrontierSpeaksInSpeedups) {
  const json summary = write_html_report(run(), run().root());
  const std::string markdown = format_run_summary(summary);
  const double flops = summary["work"]["flops"].get<double>() / summary["best_median_s"].get<double>();
  const double share = 100 * flops / summary["baseline_roofline"]["peaks"]["flop_per_second"].get<double>();
  const std::string standing = fmt::format("**The best stands at {:.0f} % of the fp32 ceiling (", share);
  EXPECT_THAT(markdown, ::testing::HasSubstr(standing));
  EXPECT_THAT(markdown, ::testing::HasSubstr(
                            fmt::format("{:.2f}× the reference's speed", summary["speedup_vs_reference"].get<double>())));
  EXPECT_LT(markdown.find(standing), markdown.find("## "));  // before any table
  const std::string html = read_file(run().root() / "report.html");
  EXPECT_LT(html.find("The best stands at"), html.find("<svg"));
  const json& first = summary["frontier"][0];
  EXPECT_THAT(markdown, ::testing::HasSubstr(fmt::format("{} ({:.3f}×)", first["versus_best"]["verdict"].get<std::string>(),
                                                         1 / first["versus_best"]["ratio"].get<double>())));
  EXPECT_THAT(html, ::testing::HasSubstr("td,th{border:1px solid #ccc;padding:.3em .6em;text-align:left;overflow-wrap:normal}"));
  EXPECT_THAT(html, ::testing::Not(::testing::HasSubstr("(simulated)")));  // a real run's charts say nothing of it
}

TEST_F(HtmlReport, EveryChartIsDrawnFromTheSummarysNumbers) {
  const json summary = write_html_report(run(), run().root());
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
  const std::string markdown = format_run_summary(summary);
  EXPECT_THAT(markdown, ::testing::HasSubstr(fmt::format("**{:.2f}× faster than the baseline**", speedups.back())));
  // One method bar per ablated method of the ledger, each the ratio summary.md prints.
  const std::vector<double> ratios = bar_values(section(html, "methods"));
  ASSERT_EQ(ratios.size(), 15u);
  EXPECT_THAT(markdown, ::testing::HasSubstr(fmt::format("{:.3f} [", ratios.front())));
  // The roofline holds the baseline, each iteration's champion and the branches that lost,
  // all at the spec's intensity: one kernel, one x.
  const json charts = report_charts(summary);
  std::size_t champions = 0;
  for (const json& it : summary["iterations"]) champions += it["champion_median_s"].is_number() ? 1 : 0;
  EXPECT_EQ(charts["roofline"]["points"].size(), 1 + champions + summary["frontier"].size());
  EXPECT_EQ(charts["roofline"]["definition"], "spec");
  for (const json& p : charts["roofline"]["points"]) {
    EXPECT_DOUBLE_EQ(p["intensity"].get<double>(), charts["roofline"]["points"][0]["intensity"].get<double>()) << p;
    EXPECT_NEAR(p["flop_per_second"].get<double>() * p["median_s"].get<double>(), summary["work"]["flops"].get<double>(), 1);
  }
}

TEST_F(HtmlReport, ShowsTheSummaryAsHtmlTablesAndTheRunsEnvironmentInTheHeader) {
  write_html_report(run(), run().root());
  const std::string html = read_file(run().root() / "report.html");
  const std::string summary = section(html, "summary");
  EXPECT_EQ(summary.find("<pre>"), std::string::npos);
  EXPECT_THAT(summary, ::testing::HasSubstr("<h3>Iterations</h3>"));
  EXPECT_THAT(summary, ::testing::HasSubstr("<th>iter</th>"));
  EXPECT_THAT(summary, ::testing::HasSubstr("<strong>17.02× faster than the baseline</strong>"));
  EXPECT_EQ(summary.find("| ---"), std::string::npos);
  // env.json's device and CUDA versions; the fixture kept no kopt.bench report of its
  // baseline, so the kopt that measured it is not known.
  EXPECT_THAT(html, ::testing::HasSubstr("<tr><th>Device</th><td>NVIDIA H200 (sm_90, 132 SMs)</td></tr>"));
  EXPECT_THAT(html, ::testing::HasSubstr("driver 13.0, runtime 13.0; Cuda compilation tools, release 13.0"));
  EXPECT_THAT(html, ::testing::HasSubstr("<td>started 2026-11-29T14:56:15Z (finished: time_budget)</td>"));
  EXPECT_THAT(html, ::testing::HasSubstr("not recorded measured the run; " KOPT_VERSION " drew this page"));
}

// Every <svg> of a page.
std::vector<std::string> svgs_of(const std::string& html) {
  std::vector<std::string> found;
  for (auto start = html.find("<svg"); start != std::string::npos; start = html.find("<svg", start + 1)) {
    found.push_back(html.substr(start, html.find("</svg>", start) - start));
  }
  return found;
}

// No two texts of a chart overlap, by svg_text.hpp's estimate of their boxes (0.6 em a
// character, which errs wide).
void expect_no_overlapping_text(const std::string& svg, const std::string& where) {
  const std::vector<SvgText> texts = svg_text_boxes(svg);
  EXPECT_FALSE(texts.empty()) << where;
  for (std::size_t i = 0; i < texts.size(); ++i) {
    for (std::size_t j = i + 1; j < texts.size(); ++j) {
      EXPECT_FALSE(texts[i].box.overlaps(texts[j].box)) << where << ": \"" << texts[i].text << "\" overlaps \""
                                                        << texts[j].text << "\"";
    }
  }
}

TEST(HtmlReportLabels, NoTwoTextsOverlapInAnyChartOfTheFixtureRuns) {
  std::vector<std::unique_ptr<TempDir>> dirs;
  dirs.push_back(copy_fixture_run("h200_sgemm_tiled_run", "sgemm_tiled"));
  dirs.push_back(copy_fixture_run("h200_reduction_run", "reduction"));
  for (const auto& dir : dirs) {
    const loop::RunFolder run(dir->path() / "run");
    write_html_report(run, run.root());
    const std::string html = read_file(run.root() / "report.html");
    const std::vector<std::string> charts = svgs_of(html);
    EXPECT_EQ(charts.size(), 6u);
    for (std::size_t i = 0; i < charts.size(); ++i) expect_no_overlapping_text(charts[i], fmt::format("report chart {}", i));
  }
  const std::string compare =
      render_comparison_html(compare_runs(loop::RunFolder(dirs[0]->path() / "run"), loop::RunFolder(dirs[1]->path() / "run")));
  for (const std::string& chart : svgs_of(compare)) expect_no_overlapping_text(chart, "compare chart");
}

// Every file of a folder and its bytes.
std::map<std::string, std::string> folder_contents(const fs::path& root) {
  std::map<std::string, std::string> contents;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    if (entry.is_regular_file()) contents[fs::relative(entry.path(), root).string()] = read_file(entry.path());
  }
  return contents;
}

// A run checked in as a fixture is only read: report.html goes where it is sent, and neither
// summary.md nor summary.json (whose recorded text is older than this kopt's) is rewritten.
TEST_F(HtmlReport, WritesOnlyReportHtmlAndNothingIntoTheRun) {
  const auto before = folder_contents(run().root());
  TempDir out("report-out");
  const json summary = write_html_report(run(), out.path() / "drawn");
  EXPECT_EQ(folder_contents(run().root()), before);
  EXPECT_EQ(folder_contents(out.path() / "drawn").size(), 1u);
  EXPECT_THAT(read_file(out.path() / "drawn" / "report.html"),
              ::testing::HasSubstr(fmt::format("{:.2f}×", summary["speedup_vs_baseline"].get<double>())));
  // Written into the run itself, it adds report.html and changes nothing else.
  write_html_report(run(), run().root());
  auto after = folder_contents(run().root());
  EXPECT_EQ(after.erase("report.html"), 1u);
  EXPECT_EQ(after, before);
}

TEST_F(HtmlReport, IsSelfContained) {
  write_html_report(run(), run().root());
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
