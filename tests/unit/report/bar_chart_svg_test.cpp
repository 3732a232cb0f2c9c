#include "kopt/report/bar_chart_svg.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <regex>

#include "report_test_support.hpp"

namespace kopt::report {
namespace {

using testing_support::attribute_values;
using testing_support::bar_values;

TEST(BarChart, DrawsEachRowWithItsIntervalAndAReferenceLine) {
  const std::string svg = render_bar_chart_svg(
      {.title = "t", .unit = "×", .rows = {{"a", 2.0, 1.9, 2.1}, {"b <c>", 1.0, 0, 0}}, .reference = 1});
  EXPECT_EQ(bar_values(svg), (std::vector<double>{2.0, 1.0}));
  EXPECT_THAT(svg, ::testing::HasSubstr(">b &lt;c&gt;</text>"));
  // Lengths are to scale: bar a is twice bar b, the interval spans 1.9 to 2.1 on that scale,
  // and the dashed reference line (at 1) stands where bar b ends.
  const std::vector<double> widths = attribute_values(svg, "bar", "width");
  ASSERT_EQ(widths.size(), 2u);
  EXPECT_GT(widths[1], 100);
  EXPECT_NEAR(widths[0], 2 * widths[1], 0.2);
  const std::vector<double> x1 = attribute_values(svg, "interval", "x1");
  const std::vector<double> x2 = attribute_values(svg, "interval", "x2");
  ASSERT_EQ(x1.size(), 1u);  // only row a has an interval
  ASSERT_EQ(x2.size(), 1u);
  const std::vector<double> bar_x = attribute_values(svg, "bar", "x");
  EXPECT_NEAR(x1[0] - bar_x[0], widths[0] * 1.9 / 2.0, 0.2);
  EXPECT_NEAR(x2[0] - bar_x[0], widths[0] * 2.1 / 2.0, 0.2);
  std::smatch reference;
  ASSERT_TRUE(std::regex_search(svg, reference, std::regex("<line x1=\"([0-9.]+)\"[^>]*stroke-dasharray")));
  EXPECT_NEAR(std::stod(reference[1]), bar_x[1] + widths[1], 0.2);
  EXPECT_EQ(svg.find("class=\"legend\""), std::string::npos);
}

TEST(BarChart, ColoursBarsBySeriesAndNamesTheSeriesInALegend) {
  const std::string svg = render_bar_chart_svg({.title = "t",
                                                .rows = {{.label = "A x", .value = 1, .colour = "#111111"},
                                                         {.label = "B x", .value = 2, .colour = "#222222"}},
                                                .legend = {{"#111111", "A: one"}, {"#222222", "B: two"}}});
  EXPECT_THAT(svg, ::testing::HasSubstr("fill=\"#111111\" data-value=\"1\""));
  EXPECT_THAT(svg, ::testing::HasSubstr("fill=\"#222222\" data-value=\"2\""));
  EXPECT_THAT(svg, ::testing::HasSubstr(">A x</text>"));
  EXPECT_THAT(svg, ::testing::HasSubstr(">B x</text>"));
  const std::regex legend("class=\"legend\"");
  EXPECT_EQ(std::distance(std::sregex_iterator(svg.begin(), svg.end(), legend), std::sregex_iterator()), 2);
  EXPECT_THAT(svg, ::testing::HasSubstr(">B: two</text>"));
}

TEST(BarChart, WritesValuesWithoutAnExponent) {
  const std::string svg = render_bar_chart_svg({.title = "t", .unit = " µs", .rows = {{"a", 54153.3}, {"b", 3.1816}}});
  EXPECT_THAT(svg, ::testing::HasSubstr(">54153 µs</text>"));
  EXPECT_THAT(svg, ::testing::HasSubstr(">3.18 µs</text>"));
}

// On a log scale bars start at 1×: 1.00× has no length, 1.06× is clearly longer than 1.01×,
// and 0.5× reaches as far left as 2× reaches right.
TEST(BarChart, OnALogScaleRatiosAreDrawnFromOne) {
  const std::string svg = render_bar_chart_svg({.title = "t", .unit = "×",
                                                .rows = {{"same", 1.0}, {"a bit", 1.01, 1.0, 1.02}, {"more", 1.06},
                                                         {"half", 0.5}, {"double", 2.0}},
                                                .reference = 1, .log_scale = true});
  const std::vector<double> widths = attribute_values(svg, "bar", "width");
  const std::vector<double> x = attribute_values(svg, "bar", "x");
  ASSERT_EQ(widths.size(), 5u);
  EXPECT_NEAR(widths[0], 0, 0.05);
  EXPECT_NEAR(widths[2] / widths[1], std::log(1.06) / std::log(1.01), 0.5);  // widths are written to 0.1 px
  EXPECT_NEAR(widths[3], widths[4], 0.2);
  EXPECT_NEAR(x[3] + widths[3], x[4], 0.2);  // the half ends where the double starts: at 1×
  // The interval is capped at both ends, and the axis has ticks around 1×.
  EXPECT_EQ(attribute_values(svg, "interval-cap", "x1").size(), 2u);
  for (const char* tick : {">1×<", ">2×<", ">0.5×<"}) EXPECT_THAT(svg, ::testing::HasSubstr(tick));
}

TEST(BarChart, HasAValueAxisWithTicksAndItsTitle) {
  const std::string svg = render_bar_chart_svg({.title = "t", .unit = "%", .rows = {{"a", 62}, {"b", 23}},
                                                .axis_title = "gap to the ceiling (%)"});
  for (const char* text : {">0 %<", ">20 %<", ">60 %<", ">gap to the ceiling (%)<"}) EXPECT_THAT(svg, ::testing::HasSubstr(text));
  EXPECT_EQ(attribute_values(svg, "tick", "x1").size(), 4u);  // 0, 20, 40 and 60 % of a 71 % axis
}

TEST(BarChart, GroupsRowsUnderOneHeadingEach) {
  const std::string svg = render_bar_chart_svg({.title = "t", .unit = "%",
                                                .rows = {{.label = "compute", .value = 1, .group = "iteration 1"},
                                                         {.label = "memory", .value = 2, .group = "iteration 1"},
                                                         {.label = "compute", .value = 3, .group = "iteration 2"}}});
  const std::regex heading("class=\"group\"[^>]*>([^<]*)<");
  std::vector<std::string> headings;
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), heading); it != std::sregex_iterator(); ++it) headings.push_back((*it)[1]);
  EXPECT_EQ(headings, (std::vector<std::string>{"iteration 1", "iteration 2"}));
  // The second group's first bar is two rows (its heading and the bar) below the first group's last.
  const std::vector<double> y = attribute_values(svg, "bar", "y");
  ASSERT_EQ(y.size(), 3u);
  EXPECT_NEAR(y[2] - y[1], 2 * (y[1] - y[0]), 1e-9);
}

TEST(BarChart, SaysSoWhenThereIsNoRow) {
  EXPECT_THAT(render_bar_chart_svg({.title = "t"}), ::testing::HasSubstr(">no data</text>"));
}

}  // namespace
}  // namespace kopt::report
