#pragma once
// The roofline chart as a self-contained SVG (no scripts, fonts or links, so it can be
// embedded in report.html or opened alone): log-log axes, arithmetic intensity (FLOP/byte)
// across and FLOP/s up, each with ticks and its unit, the memory roof as the slope, one flat
// roof per compute ceiling, each ridge marked, and the kernels as labelled points. The axes
// span the data and the roofs (not whole decades of empty space), and every label is placed
// where it overlaps no other text and no point (svg_text.hpp).

#include <string>
#include <utility>
#include <vector>

#include "kopt/core/units.hpp"
#include "kopt/roofline/roofline_analysis.hpp"

namespace kopt::report {

struct RooflineChartPoint {
  std::string label;            // "baseline", "iter1 champion"; empty: a small grey dot without a label
  double arithmetic_intensity;  // FLOP/byte; NaN or ≤ 0 when unknown: the point is left out, with a note
  double flop_per_second;
};

struct RooflineChart {
  double bytes_per_second = 0;                                    // the memory roof (DRAM)
  std::vector<std::pair<std::string, double>> compute_ceilings;   // {"FP32", 67e12}, ...; FLOP/s
  std::vector<RooflineChartPoint> points;
  std::string title;
};

// Where the chart draws: the axis ranges (as base-10 logarithms) and the plot area in
// pixels. Exposed so that a test can hold the drawing to the data.
struct RooflineAxes {
  double x_log_min = 0, x_log_max = 1;  // intensity from 10^min to 10^max FLOP/byte
  double y_log_min = 0, y_log_max = 1;  // performance from 10^min to 10^max FLOP/s
  double left = 0, right = 0, top = 0, bottom = 0;  // plot area, pixels (y grows downwards)

  double x_pixel(double intensity) const;
  double y_pixel(double flop_per_second) const;
};

// Ranges that hold every ridge and every drawable point across, and every ceiling and point
// up, with a margin (a factor of about 3 across, 2 up) so that labels fit. Throws
// Error(bad_input) without a positive bandwidth and at least one positive compute ceiling.
RooflineAxes roofline_axes(const RooflineChart& chart);

// Tick values for a log axis from 10^log_min to 10^log_max: every power of ten when the axis
// spans more than 2.5 decades, else 1, 2 and 5 times each power of ten.
std::vector<double> log_ticks(double log_min, double log_max);

std::string render_roofline_svg(const RooflineChart& chart);

// One kernel's analysis as a chart: its point under its memory roof and its binding compute
// ceiling, titled `label` (marked when the analysis is the analytic one).
std::string render_roofline_svg(const roofline::RooflineAnalysis& analysis, const std::string& label);

// "67 TFLOP/s", "4.8 TB/s" (core/units.hpp), as the report's tables and charts print rates.
using kopt::format_rate;

// Text made safe for XML character data and attribute values.
std::string escape_xml(const std::string& text);

}  // namespace kopt::report
