#include "kopt/report/bar_chart_svg.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

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

TEST(BarChart, SaysSoWhenThereIsNoRow) {
  EXPECT_THAT(render_bar_chart_svg({.title = "t"}), ::testing::HasSubstr(">no data</text>"));
}

}  // namespace
}  // namespace kopt::report
