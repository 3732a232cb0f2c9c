#pragma once
// The roofline chart as a self-contained SVG (no scripts, fonts or links, so it can be
// embedded in report.html or opened alone): log-log axes, arithmetic intensity (FLOP/byte)
// across and FLOP/s up, the memory roof as the slope, one flat roof per compute ceiling,
// each ridge marked, and the kernels as labelled points.

#include <string>
#include <utility>
#include <vector>

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

// Where the chart draws: the axis ranges (powers of ten, as exponents) and the plot area
// in pixels. Exposed so that a test can hold the drawing to the data.
struct RooflineAxes {
  int x_decade_min = 0, x_decade_max = 1;  // intensity from 10^min to 10^max FLOP/byte
  int y_decade_min = 0, y_decade_max = 1;  // performance from 10^min to 10^max FLOP/s
  double left = 0, right = 0, top = 0, bottom = 0;  // plot area, pixels (y grows downwards)

  double x_pixel(double intensity) const;
  double y_pixel(double flop_per_second) const;
};

// Ranges that hold every roof, every ridge and every drawable point, with a decade to spare
// on each side of the intensities. Throws Error(bad_input) without a positive bandwidth and
// at least one positive compute ceiling.
RooflineAxes roofline_axes(const RooflineChart& chart);

std::string render_roofline_svg(const RooflineChart& chart);

// "67 TFLOP/s", "4.8 TB/s", "850 GFLOP/s": three significant digits and an SI prefix.
std::string format_rate(double per_second, const std::string& unit);

// Text made safe for XML character data and attribute values.
std::string escape_xml(const std::string& text);

}  // namespace kopt::report
