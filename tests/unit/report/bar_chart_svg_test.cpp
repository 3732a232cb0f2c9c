#include "kopt/report/bar_chart_svg.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <regex>

#include "report_test_support.hpp"

namespace kopt::report {
namespace {

using testing_support::bar_values;

TEST(BarChart, DrawsEachRowWithItsIntervalAndAReferenceLine) {
  const std::string svg = render_bar_chart_svg(
      {.title = "t", .unit = "×", .rows = {{"a", 2.0, 1.9, 2.1}, {"b <c>", 1.0, 0, 0}}, .reference = 1});
  EXPECT_EQ(bar_values(svg), (std::vector<double>{2.0, 1.0}));
  EXPECT_THAT(svg, ::testing::HasSubstr("b &lt;c&gt;"));
  EXPECT_EQ(std::count(svg.begin(), svg.end(), '\n') > 3, true);
  EXPECT_NE(svg.find("class=\"interval\""), std::string::npos);
  EXPECT_NE(svg.find("stroke-dasharray"), std::string::npos);
  EXPECT_EQ(svg.find("class=\"legend\""), std::string::npos);
}

TEST(BarChart, ColoursBarsBySeriesAndNamesTheSeriesInALegend) {
  const std::string svg = render_bar_chart_svg({.title = "t",
                                                .rows = {{.label = "A x", .value = 1, .colour = "#111111"},
                                                         {.label = "B x", .value = 2, .colour = "#222222"}},
                                                .legend = {{"#111111", "A: one"}, {"#222222", "B: two"}}});
  EXPECT_THAT(svg, ::testing::HasSubstr("fill=\"#111111\" data-value=\"1\""));
  EXPECT_THAT(svg, ::testing::HasSubstr("fill=\"#222222\" data-value=\"2\""));
  EXPECT_EQ(std::count(svg.begin(), svg.end(), 'A') >= 1, true);
  const std::regex legend("class=\"legend\"");
  EXPECT_EQ(std::distance(std::sregex_iterator(svg.begin(), svg.end(), legend), std::sregex_iterator()), 2);
  EXPECT_THAT(svg, ::testing::HasSubstr(">B: two</text>"));
}

TEST(BarChart, WritesValuesWithoutAnExponent) {
  const std::string svg = render_bar_chart_svg({.title = "t", .unit = " µs", .rows = {{"a", 54153.3}, {"b", 3.1816}}});
  EXPECT_THAT(svg, ::testing::HasSubstr(">54153 µs</text>"));
  EXPECT_THAT(svg, ::testing::HasSubstr(">3.18 µs</text>"));
}

TEST(BarChart, SaysSoWhenThereIsNoRow) {
  EXPECT_THAT(render_bar_chart_svg({.title = "t"}), ::testing::HasSubstr(">no data</text>"));
}

}  // namespace
}  // namespace kopt::report
