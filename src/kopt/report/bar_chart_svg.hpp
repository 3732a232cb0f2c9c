#pragma once
// A horizontal bar chart as a self-contained SVG, the report pages' common chart: one bar
// per row, an optional interval drawn as a whisker, an optional reference line (1.0 for
// ratios), and bars coloured by series with a legend when the chart compares two runs.

#include <string>
#include <utility>
#include <vector>

namespace kopt::report {

struct BarRow {
  std::string label;
  double value = 0;
  double low = 0, high = 0;   // the interval; both 0: none
  std::string colour;         // empty: the default blue
};

struct BarChart {
  std::string title;
  std::string unit;           // appended to the value labels: "×", "%"
  std::vector<BarRow> rows;
  double reference = 0;       // a vertical line at this value (1.0 for ratios); 0: none
  std::vector<std::pair<std::string, std::string>> legend;  // {colour, text}, drawn under the title
};

inline constexpr const char* kDefaultBarColour = "#4a7ab5";

// Each bar carries its value (data-value), so that a test can hold the drawing to the numbers.
std::string render_bar_chart_svg(const BarChart& chart);

}  // namespace kopt::report
