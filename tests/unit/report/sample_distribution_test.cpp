#include "kopt/report/sample_distribution.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>


#include "kopt/core/files.hpp"
#include "kopt/loop/run_loop.hpp"
#include "kopt/loop/simulated_lab.hpp"
#include "kopt/report/html_report.hpp"
#include "kopt/report/run_summary.hpp"
#include "report_test_support.hpp"

namespace kopt::report {
namespace {
namespace fs = std::filesystem;
using json = nlohmann::json;
using ::testing::HasSubstr;

using testing_support::attribute_values;

std::size_t count_of(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(LinearTicks, StepsOfOneTwoOrFiveTimesAPowerOfTen) {
  EXPECT_EQ(linear_ticks(0, 10, 5), (std::vector<double>{0, 2, 4, 6, 8, 10}));
  EXPECT_EQ(linear_ticks(3398.1, 3406.9, 6), (std::vector<double>{3400, 3402, 3404, 3406}));
  EXPECT_EQ(linear_ticks(0.3, 2.9, 3), (std::vector<double>{1, 2}));
  EXPECT_EQ(linear_ticks(5, 5, 6), (std::vector<double>{5}));
}

TEST(DistributionChart, DrawsEverySampleAndEachMedianOnOneAxis) {
  const std::vector<SampleDistribution> rows = {
      {.label = "baseline", .median_s = 2e-3, .ci_low_s = 1.9e-3, .ci_high_s = 2.1e-3, .samples_s = {1.8e-3, 2e-3, 2.2e-3}},
      {.label = "best <b2>", .median_s = 1e-3, .ci_low_s = 0.99e-3, .ci_high_s = 1.01e-3, .samples_s = {0.9e-3, 1e-3, 1.1e-3, 1.2e-3}}};
  const std::string svg = render_distribution_svg(rows);
  EXPECT_EQ(count_of(svg, "class=\"sample\""), 7u);
  EXPECT_EQ(attribute_values(svg, "median", "data-value"), (std::vector<double>{2e-3, 1e-3}));
  EXPECT_EQ(count_of(svg, "class=\"interval\""), 2u);
  EXPECT_THAT(svg, HasSubstr("best &lt;b2&gt;"));
  // The medians are written as summary.md writes them.
  EXPECT_THAT(svg, HasSubstr("median " + format_us(2e-3)));
  EXPECT_THAT(svg, HasSubstr("3 samples"));
  // One axis: the faster variant's median lies left of the slower one's, and each median
  // inside its own samples' span.
  const std::vector<double> medians_x = attribute_values(svg, "median", "x1");
  const std::vector<double> samples_x = attribute_values(svg, "sample", "cx");
  ASSERT_EQ(samples_x.size(), 7u);
  EXPECT_LT(medians_x[1], medians_x[0]);
  EXPECT_LT(samples_x[0], medians_x[0]);
  EXPECT_GT(samples_x[2], medians_x[0]);
  EXPECT_LT(samples_x[3], medians_x[1]);
  EXPECT_GT(samples_x[6], medians_x[1]);
  // Below, the same samples around their own median: both medians at 0 %, on one scale.
  EXPECT_EQ(count_of(svg, "class=\"sample-relative\""), 7u);
  const std::vector<double> zero_x = attribute_values(svg, "median-relative", "x1");
  ASSERT_EQ(zero_x.size(), 2u);
  EXPECT_EQ(zero_x[0], zero_x[1]);
  EXPECT_THAT(svg, HasSubstr("p10 to p90: -8.00 % to +8.00 %"));  // 1.8, 2, 2.2 ms: ±10 %, interpolated
}

TEST(DistributionChart, SaysInOneLineWhyWhenNoSampleWasKept) {
  const std::string svg = render_distribution_svg(
      {{.label = "baseline", .median_s = 2e-3, .missing = "no baseline/baseline_bench.json"},
       {.label = "best", .median_s = 1e-3, .missing = "no iter2/finals_bench.json"}});
  EXPECT_EQ(count_of(svg, "class=\"note\""), 1u);
  EXPECT_THAT(svg, HasSubstr("Samples not available — baseline: no baseline/baseline_bench.json; best: no "
                             "iter2/finals_bench.json"));
  EXPECT_EQ(count_of(svg, "class=\"sample\""), 0u);
}

TEST(DistributionChart, NamesTheVariantWhoseSamplesAreMissingBesideTheOthers) {
  const std::string svg = render_distribution_svg(
      {{.label = "baseline", .median_s = 2e-3, .missing = "no baseline/baseline_bench.json"},
       {.label = "best", .median_s = 1e-3, .samples_s = {0.9e-3, 1e-3, 1.1e-3}}});
  EXPECT_EQ(count_of(svg, "class=\"sample\""), 3u);
  EXPECT_THAT(svg, HasSubstr("samples not available: no baseline/baseline_bench.json"));
  EXPECT_EQ(attribute_values(svg, "median", "data-value").size(), 2u);
  EXPECT_EQ(count_of(svg, "class=\"median-relative\""), 1u);  // only what was kept is shown around its median
}

// The real H200 run keeps no per-sample files (tests/fixtures/loop/h200_sgemm_tiled_run/README.md).
TEST(KeptSamples, TheH200FixtureKeptNoneAndTheChartSaysWhich) {
  const loop::RunFolder run(fs::path(KOPT_FIXTURES_DIR) / "loop" / "h200_sgemm_tiled_run");
  const json summary = run_summary(run);
  const std::vector<SampleDistribution> rows = kept_sample_distributions(run, summary);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].median_s, summary["baseline_median_s"].get<double>());
  EXPECT_EQ(rows[1].median_s, summary["best_median_s"].get<double>());
  EXPECT_EQ(rows[1].label, "best (iter4/champion)");
  EXPECT_EQ(rows[0].missing, "no baseline/baseline_bench.json");
  EXPECT_EQ(rows[1].missing, "no iter4/finals_bench.json");
  EXPECT_EQ(rows[1].ci_low_s, summary["best_median_ci_s"][0].get<double>());
}

class KeptSamplesInACopy : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::make_unique<TempDir>("samples-test");
    fs::copy(fs::path(KOPT_FIXTURES_DIR) / "loop" / "h200_sgemm_tiled_run", dir_->path() / "run",
             fs::copy_options::recursive);
  }
  loop::RunFolder run() const { return loop::RunFolder(dir_->path() / "run"); }
  // A kopt.bench report holding `label`'s samples: around `median`, whose median it is.
  void write_report(const fs::path& file, const std::string& label, double median) const {
    const json samples = {median * 0.99, median, median * 1.02};
    loop::write_json(file, {{"kind", "bench"},
                            {"variants", {{{"label", "other"}, {"samples_seconds", json::array({1.0})}},
                                          {{"label", label}, {"samples_seconds", samples}}}}});
  }
  std::unique_ptr<TempDir> dir_;
};

TEST_F(KeptSamplesInACopy, FindsTheBaselinesAndTheChampionsSamplesOfTheirMeasurements) {
  const json summary = run_summary(run());
  write_report(run().baseline() / "baseline_bench.json", "baseline", summary["baseline_median_s"]);
  write_report(run().iteration(4) / "finals_bench.json", "iter4/b2", summary["best_median_s"]);
  const std::vector<SampleDistribution> rows = kept_sample_distributions(run(), summary);
  ASSERT_EQ(rows.size(), 2u);
  for (const SampleDistribution& d : rows) {
    EXPECT_EQ(d.samples_s.size(), 3u) << d.label;
    EXPECT_EQ(d.missing, "") << d.label;
  }
  EXPECT_EQ(rows[1].samples_s[1], summary["best_median_s"].get<double>());
}

TEST_F(KeptSamplesInACopy, RefusesSamplesThatDoNotGiveTheSummarysMedian) {
  const json summary = run_summary(run());
  write_report(run().baseline() / "baseline_bench.json", "baseline", 2 * summary["baseline_median_s"].get<double>());
  write_report(run().iteration(4) / "finals_bench.json", "iter4/b7", summary["best_median_s"]);
  const std::vector<SampleDistribution> rows = kept_sample_distributions(run(), summary);
  EXPECT_TRUE(rows[0].samples_s.empty());
  EXPECT_EQ(rows[0].missing, "the samples of baseline in baseline/baseline_bench.json do not give the summary's median");
  EXPECT_EQ(rows[1].missing, "iter4/finals_bench.json holds no samples of iter4/b2");
}

// A champion with a harmful method switched off is the best at the median its ablation gave it
// (the H200 reduction run of 2026-12-01): its samples are the ablation's.
TEST_F(KeptSamplesInACopy, FindsTheSamplesOfABestTheAblationTimed) {
  json summary = run_summary(run());
  const double ablated = 0.97 * summary["best_median_s"].get<double>();
  summary["best_median_s"] = ablated;
  loop::write_json(run().iteration(4) / "ablation.json",
                   {{"outcomes", {{{"label", "champion"}, {"median_s", 1.0}},
                                  {{"label", "without latency.grid_stride_loop"}, {"median_s", ablated}}}}});
  write_report(run().iteration(4) / "finals_bench.json", "iter4/b2", 1.0);
  write_report(run().iteration(4) / "ablation_bench.json", "without latency.grid_stride_loop", ablated);
  const std::vector<SampleDistribution> rows = kept_sample_distributions(run(), summary);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[1].missing, "");
  ASSERT_EQ(rows[1].samples_s.size(), 3u);
  EXPECT_EQ(rows[1].samples_s[1], ablated);
}

TEST_F(KeptSamplesInACopy, SaysWhenNoMeasurementGivesTheSummarysMedian) {
  json summary = run_summary(run());
  summary["best_median_s"] = 0.5 * summary["best_median_s"].get<double>();
  const std::vector<SampleDistribution> rows = kept_sample_distributions(run(), summary);
  EXPECT_EQ(rows[1].missing,
            "no measurement in iter4/champion/bench.json or iter4/ablation.json gives the summary's median");
}

// A run on the simulated lab keeps its samples where a real one does; report.html draws all of
// them, and its medians are summary.md's.
TEST(KeptSamples, ASimulatedRunsReportDrawsEverySampleOfTheBaselineAndTheChampion) {
  TempDir dir("samples-sim");
  loop::SimulatedLab lab(fs::path(KOPT_FIXTURES_DIR) / "loop" / "sgemm_tiled_model.json");
  const loop::RunFolder run(dir.path() / "run");
  loop::init_run(lab, {.kernel = fs::path(KOPT_SOURCE_DIR) / "examples" / "sgemm_tiled",
                       .settings = {.iterations = 1, .branches = 1}, .run_dir = run.root()});
  write_file_atomic(run.branches(1) / "b1" / "variant.json", R"({"defines": {"BM": "128", "BN": "128"}})");
  write_file_atomic(run.iteration(1) / "methods.json", R"({"methods": []})");
  loop::close_iteration(lab, run);

  write_run_summary(run);  // kopt finalize: summary.md, whose medians the report must show
  const json summary = write_html_report(run, run.root());
  ASSERT_EQ(summary["best_iteration"], 1);
  const std::string html = read_file(run.root() / "report.html");
  const auto start = html.find("<section id=\"samples\"");
  ASSERT_NE(start, std::string::npos);
  const std::string svg = html.substr(start, html.find("</section>", start) - start);
  EXPECT_EQ(count_of(svg, "class=\"sample\""), 80u);  // the model's 40 samples, twice
  EXPECT_EQ(attribute_values(svg, "median", "data-value"),
            (std::vector<double>{summary["baseline_median_s"], summary["best_median_s"]}));
  const std::string markdown = read_file(run.root() / "summary.md");
  EXPECT_THAT(markdown, HasSubstr(format_us(summary["best_median_s"])));
  EXPECT_THAT(svg, HasSubstr("median " + format_us(summary["best_median_s"])));
}

}  // namespace
}  // namespace kopt::report
