#include "kopt/report/roofline_svg.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <regex>

#include "kopt/core/error.hpp"
#include "kopt/core/files.hpp"
#include "kopt/measure/peaks.hpp"
#include "kopt/profile/metric_map.hpp"
#include "kopt/profile/ncu_csv.hpp"

namespace kopt::report {
namespace {

RooflineChart two_kernel_chart() {
  return RooflineChart{.bytes_per_second = 4.8e12,
                       .compute_ceilings = {{"FP32", 67e12}, {"BF16 tensor", 989.4e12}},
                       .points = {{"baseline", 0.25, 0.84e12}, {"iter1 champion", 40, 30e12}},
                       .title = "vector <add> & friends"};
}

// Every element opened is closed, in order: a tag counter, enough to catch a missing "</g>"
// or a stray "<" in text without an XML parser.
void expect_balanced_tags(const std::string& svg) {
  std::vector<std::string> open;
  const std::regex tag(R"(<(/?)([a-zA-Z?!][^\s/>]*)[^>]*?(/?)>)");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), tag); it != std::sregex_iterator(); ++it) {
    const std::string name = (*it)[2];
    if (name.starts_with("?") || name.starts_with("!")) continue;
    if ((*it)[3] == "/") continue;  // self-closing
    if ((*it)[1] == "/") {
      ASSERT_FALSE(open.empty()) << "</" << name << "> closes nothing";
      ASSERT_EQ(open.back(), name);
      open.pop_back();
    } else {
      open.push_back(name);
    }
  }
  EXPECT_THAT(open, testing::IsEmpty());
  // Text holds no raw '<' or '&' that is not an entity.
  EXPECT_FALSE(std::regex_search(svg, std::regex(R"(&(?!amp;|lt;|gt;|quot;|apos;))")));
}

std::vector<std::map<std::string, double>> elements(const std::string& svg, const std::string& element,
                                                    const std::string& css_class) {
  std::vector<std::map<std::string, double>> found;
  const std::regex tag("<" + element + " class=\"" + css_class + "\"([^>]*)/>");
  const std::regex attribute(R"(([a-z0-9]+)="(-?[0-9.]+)\")");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), tag); it != std::sregex_iterator(); ++it) {
    const std::string attributes = (*it)[1];
    std::map<std::string, double> values;
    for (auto a = std::sregex_iterator(attributes.begin(), attributes.end(), attribute); a != std::sregex_iterator(); ++a) {
      values[(*a)[1]] = std::stod((*a)[2]);
    }
    found.push_back(values);
  }
  return found;
}

TEST(RooflineSvg, IsWellFormedAndSelfContained) {
  const std::string svg = render_roofline_svg(two_kernel_chart());
  expect_balanced_tags(svg);
  EXPECT_THAT(svg, testing::StartsWith("<?xml"));
  EXPECT_THAT(svg, testing::Not(testing::HasSubstr("<script")));
  EXPECT_THAT(svg, testing::Not(testing::HasSubstr("href")));
  EXPECT_THAT(svg, testing::Not(testing::HasSubstr("@import")));
}

TEST(RooflineSvg, LabelsEveryRoofPointAndTitleEscaped) {
  const std::string svg = render_roofline_svg(two_kernel_chart());
  for (const char* text : {"baseline 840 GFLOP/s", "iter1 champion 30 TFLOP/s", "FP32 67 TFLOP/s", "BF16 tensor 989 TFLOP/s",
                           "DRAM 4.8 TB/s", "vector &lt;add&gt; &amp; friends", "ridge 14 FLOP/B",
                           "Arithmetic intensity (FLOP/byte)"}) {
    EXPECT_THAT(svg, testing::HasSubstr(text));
  }
  EXPECT_THAT(svg, testing::HasSubstr(">1 TFLOP/s<"));
  EXPECT_THAT(svg, testing::HasSubstr(">10 TFLOP/s<"));
  EXPECT_THAT(svg, testing::HasSubstr("Performance (FLOP/s)"));
}

TEST(RooflineSvg, PointsLieInsideThePlotArea) {
  const RooflineChart chart = two_kernel_chart();
  const RooflineAxes axes = roofline_axes(chart);
  const auto points = elements(render_roofline_svg(chart), "circle", "point");
  ASSERT_THAT(points, testing::SizeIs(2));
  for (const auto& point : points) {
    EXPECT_GT(point.at("cx"), axes.left);
    EXPECT_LT(point.at("cx"), axes.right);
    EXPECT_GT(point.at("cy"), axes.top);
    EXPECT_LT(point.at("cy"), axes.bottom);
  }
  EXPECT_NEAR(points[0].at("cx"), axes.x_pixel(0.25), 0.05);
  EXPECT_NEAR(points[1].at("cy"), axes.y_pixel(30e12), 0.05);
}

TEST(RooflineSvg, EveryRoofAndRidgeIsInsideTheAxes) {
  const RooflineChart chart = two_kernel_chart();
  const RooflineAxes axes = roofline_axes(chart);
  for (const auto& [name, flops] : chart.compute_ceilings) {
    EXPECT_GT(std::log10(flops / chart.bytes_per_second), axes.x_log_min) << name;
    EXPECT_LT(std::log10(flops / chart.bytes_per_second), axes.x_log_max) << name;
    EXPECT_LT(std::log10(flops), axes.y_log_max) << name;
  }
}

// The y axis spans the points and the roofs with a factor of 2 to spare, not whole decades:
// an H200's 67 TFLOP/s roof with points from 2.5 TFLOP/s does not reach up to 1 PFLOP/s.
TEST(RooflineSvg, TheAxesSpanTheDataNotWholeDecades) {
  const RooflineChart chart{.bytes_per_second = 4.8e12, .compute_ceilings = {{"fp32", 67e12}},
                            .points = {{"baseline", 680, 2.54e12}, {"iter4 champion", 680, 43e12}}};
  const RooflineAxes axes = roofline_axes(chart);
  EXPECT_NEAR(std::pow(10.0, axes.y_log_max), 2 * 67e12, 1e12);
  EXPECT_NEAR(std::pow(10.0, axes.y_log_min), 2.54e12 / 2, 0.02e12);
  const std::string svg = render_roofline_svg(chart);
  EXPECT_THAT(svg, testing::Not(testing::HasSubstr("PFLOP/s")));
  // Up, 2 decades: ticks at 1, 2 and 5 of each; across, 2.7 decades: at each power of ten.
  for (const char* tick : {">2 TFLOP/s<", ">5 TFLOP/s<", ">10 TFLOP/s<", ">100 TFLOP/s<", ">100<", ">1000<"}) {
    EXPECT_THAT(svg, testing::HasSubstr(tick));
  }
}

TEST(RooflineSvg, LogTicksAreDecadesOverAWideSpanAndOneTwoFiveOverANarrowOne) {
  EXPECT_EQ(log_ticks(-0.5, 3.2), (std::vector<double>{1, 10, 100, 1000}));
  EXPECT_EQ(log_ticks(0.1, 1.5), (std::vector<double>{2, 5, 10, 20}));
}

// The slope ends where the highest flat roof begins, at the ridge's abscissa; every lower
// ceiling's roof begins on the slope, at its own ridge.
TEST(RooflineSvg, TheMemoryRoofMeetsTheComputeRoofAtTheRidge) {
  const RooflineChart chart = two_kernel_chart();
  const RooflineAxes axes = roofline_axes(chart);
  const std::string svg = render_roofline_svg(chart);
  const auto memory = elements(svg, "line", "memory-roof");
  const auto compute = elements(svg, "line", "compute-roof");
  ASSERT_THAT(memory, testing::SizeIs(1));
  ASSERT_THAT(compute, testing::SizeIs(2));
  const auto& top = compute[1];  // BF16 tensor, the highest
  EXPECT_NEAR(memory[0].at("x2"), top.at("x1"), 0.11);
  EXPECT_NEAR(memory[0].at("y2"), top.at("y1"), 0.11);
  EXPECT_NEAR(top.at("x1"), axes.x_pixel(989.4e12 / 4.8e12), 0.06);
  // The FP32 ridge lies on the slope: same pixel slope from the slope's start.
  const double slope = (memory[0].at("y2") - memory[0].at("y1")) / (memory[0].at("x2") - memory[0].at("x1"));
  const double fp32_y_on_slope = memory[0].at("y1") + slope * (compute[0].at("x1") - memory[0].at("x1"));
  EXPECT_NEAR(compute[0].at("y1"), fp32_y_on_slope, 0.3);
  EXPECT_NEAR(compute[0].at("x1"), axes.x_pixel(67e12 / 4.8e12), 0.06);
}

TEST(RooflineSvg, APointWithoutIntensityIsLeftOutWithANote) {
  RooflineChart chart = two_kernel_chart();
  chart.points.push_back({"iter2 (no bytes)", std::nan(""), 1e12});
  const std::string svg = render_roofline_svg(chart);
  EXPECT_THAT(elements(svg, "circle", "point"), testing::SizeIs(2));
  EXPECT_THAT(svg, testing::HasSubstr("Not shown (intensity or FLOP/s unknown): iter2 (no bytes)"));
  expect_balanced_tags(svg);
}

TEST(RooflineSvg, RejectsAChartWithoutRoofs) {
  RooflineChart chart = two_kernel_chart();
  chart.compute_ceilings.clear();
  EXPECT_THROW(render_roofline_svg(chart), Error);
  chart = two_kernel_chart();
  chart.bytes_per_second = 0;
  EXPECT_THROW(render_roofline_svg(chart), Error);
}

TEST(RooflineSvgFormat, RatesGetAnSiPrefix) {
  EXPECT_EQ(format_rate(67e12, "FLOP/s"), "67 TFLOP/s");
  EXPECT_EQ(format_rate(4.8e12, "B/s"), "4.8 TB/s");
  EXPECT_EQ(format_rate(1e15, "FLOP/s"), "1 PFLOP/s");
  EXPECT_EQ(format_rate(850e9, "FLOP/s"), "850 GFLOP/s");
  EXPECT_EQ(escape_xml("a<b & \"c\""), "a&lt;b &amp; &quot;c&quot;");
}

// docs/img/roofline_example.svg is this chart: the naive SGEMM fixture on the H200's
// datasheet roofs. The test fails when the drawing changes; KOPT_UPDATE_EXAMPLES=1 rewrites it
// and skips the comparison (a rewritten file compared with itself would prove nothing).
TEST(RooflineSvgExample, TheDocsExampleIsTheNaiveSgemmFixture) {
  const profile::NcuReport report = profile::parse_ncu_raw_csv(
      read_file(std::string(KOPT_FIXTURES_DIR) + "/ncu/ncu2025.3.1_h200_sm90_raw_sgemm_naive.csv"));
  const profile::MetricMap map = profile::load_metric_map("2025.3.1", "sm_90").value();
  const auto concepts = profile::resolve_concepts(map, report.launches.at(0));
  const double flops = *concepts.at("fp32_flop_per_second").value, bytes = *concepts.at("dram_bytes_per_second").value;
  const measure::DevicePeaks peaks = measure::datasheet_peaks("NVIDIA H200").value();
  const RooflineChart chart{
      .bytes_per_second = peaks.dram_bytes_per_second,
      .compute_ceilings = {{"FP32", peaks.flops.at("fp32")}, {"TF32 tensor", peaks.flops.at("tf32_tensor")}},
      .points = {{"naive SGEMM 4096³ (baseline)", flops / bytes, flops}},
      .title = "Roofline: naive SGEMM on the H200 (example; datasheet roofs)"};
  const std::string svg = render_roofline_svg(chart);
  expect_balanced_tags(svg);
  const std::string path = std::string(KOPT_SOURCE_DIR) + "/docs/img/roofline_example.svg";
  if (const char* update = std::getenv("KOPT_UPDATE_EXAMPLES"); update != nullptr && std::string(update) == "1") {
    write_file_atomic(path, svg);
    GTEST_SKIP() << "rewrote " << path << ": review it with git diff, then run again without KOPT_UPDATE_EXAMPLES";
  }
  EXPECT_EQ(read_file(path), svg) << "run with KOPT_UPDATE_EXAMPLES=1 to rewrite " << path;
}

}  // namespace
}  // namespace kopt::report
