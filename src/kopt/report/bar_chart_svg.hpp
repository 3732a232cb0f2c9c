#pragma once
// A horizontal bar chart as a self-contained SVG, the report pages' common chart: one bar
// per row, an optional interval drawn as a whisker with caps, an optional reference line
// (1.0 for ratios), a value axis with ticks and its title (the unit), rows grouped under a
// bold heading (one per iteration), and bars coloured by series with a legend.
//
// The value axis is linear from 0, or logarithmic around the reference (`log_scale`): a
// ratio's bar then starts at 1×, so 1.01× and 1.06× differ visibly and 0.5× is as long as 2×.

#include <string>
#include <utility>
#include <vector>

namespace kopt::report {

struct BarRow {
  std::string label;
  double value = 0;
  double low = 0, high = 0;   // the interval; both 0: none
  std::string colour;         // empty: the default blue
  std::string group;          // rows of one group follow each other under its heading; empty: none
};

struct BarChart {
  std::string title;
  std::string unit;           // appended to the value labels: "×", "%", " µs"
  std::vector<BarRow> rows;
  double reference = 0;       // a vertical line at this value (1.0 for ratios); 0: none
  std::vector<std::pair<std::string, std::string>> legend;  // {colour, text}, drawn under the title
  std::string axis_title;     // under the value axis: what is measured, and in what unit
  bool log_scale = false;     // a log axis; bars start at the reference (which must be > 0)
};

inline constexpr const char* kDefaultBarColour = "#4a7ab5";

// Each bar carries its value (data-value), so that a test can hold the drawing to the numbers.
std::string render_bar_chart_svg(const BarChart& chart);

// Ticks of a log axis around 1 (×): 1, 1.01, 1.02, 1.05, 1.1, 1.2, 1.5, 2, 3, 5, 10, ... and
// 0.99, 0.98, ... down, inside [low, high], each at least `min_gap` of the axis' width (as a
// fraction) from the ticks nearer 1.
std::vector<double> ratio_ticks(double low, double high, double min_gap);

}  // namespace kopt::report
