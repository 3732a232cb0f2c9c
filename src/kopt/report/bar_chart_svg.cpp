#include "kopt/report/bar_chart_svg.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "kopt/report/roofline_svg.hpp"
#include "kopt/report/sample_distribution.hpp"

namespace kopt::report {
namespace {

constexpr double kBarWidth = 640;   // the drawing area of a bar chart, pixels
constexpr double kLabelWidth = 260;
constexpr double kRowHeight = 22;
constexpr double kLegendHeight = 20;
constexpr double kAxisHeight = 48;  // under the rows: tick labels and the axis title
constexpr double kCapHeight = 8;    // the whiskers' end caps, pixels

// Three significant digits, never an exponent: "17×", "0.962×", "54153 µs" (not "5.42e+04 µs").
std::string fmt_value(double v, const std::string& unit) {
  if (unit == "%") return fmt::format("{:.0f} %", v);
  return std::abs(v) >= 1000 ? fmt::format("{:.0f}{}", v, unit) : fmt::format("{:.3g}{}", v, unit);
}

std::string draw_legend(const BarChart& chart) {
  std::string svg;
  double x = 10;
  for (const auto& [colour, text] : chart.legend) {
    svg += fmt::format("<rect class=\"legend\" x=\"{:.1f}\" y=\"30\" width=\"12\" height=\"12\" fill=\"{}\"/>\n"
                       "<text x=\"{:.1f}\" y=\"40\">{}</text>\n",
                       x, colour, x + 16, escape_xml(text));
    x += 16 + 7.2 * static_cast<double>(text.size()) + 24;  // 0.6 em a character at 12 px (svg_text.hpp)
  }
  return svg;
}

// The value axis: where a value is drawn, and which ticks it has.
struct ValueAxis {
  bool log = false;
  double low = 0, high = 1;  // the values at the left and right end of the bar area

  double x(double v) const {
    if (log) return kLabelWidth + kBarWidth * (std::log(std::max(v, 1e-300)) - std::log(low)) / (std::log(high) - std::log(low));
    return kLabelWidth + kBarWidth * std::max(0.0, v) / high;
  }
  // Where bars start: 0, or the reference on a log axis.
  double base = 0;
};

ValueAxis value_axis(const BarChart& chart) {
  double top = chart.reference, bottom = chart.log_scale ? chart.reference : 0;
  for (const BarRow& r : chart.rows) {
    top = std::max({top, r.value, r.high});
    if (chart.log_scale) bottom = std::min({bottom, r.value, r.low > 0 ? r.low : r.value});
  }
  if (!chart.log_scale) return {.log = false, .low = 0, .high = (top > 0 ? top : 1) * 1.15, .base = 0};
  // At least 5 % right of the reference (so that 1.01× shows), nothing left of it unless a
  // value or interval is there, then room for the value labels right of the bars.
  const double lo = std::log(bottom), hi = std::log(std::max(top, chart.reference * 1.05));
  const double span = hi - lo;
  return {.log = true, .low = std::exp(lo - 0.05 * span), .high = std::exp(hi + 0.18 * span), .base = chart.reference};
}

std::string tick_text(double v, const BarChart& chart, double step) {
  if (chart.unit == "×") return fmt::format("{:g}×", v);
  if (chart.unit == "%") return fmt::format("{:g} %", v);
  const int decimals = std::max(0, -static_cast<int>(std::floor(std::log10(step))));
  return fmt::format("{:.{}f}", v, decimals);
}

std::string draw_value_axis(const BarChart& chart, const ValueAxis& axis, double top, double bottom) {
  std::vector<double> ticks = axis.log ? ratio_ticks(axis.low, axis.high, 0.08) : linear_ticks(0, axis.high, 6);
  const double step = ticks.size() > 1 ? ticks[1] - ticks[0] : 1;
  std::string grid = "<g class=\"grid\" stroke=\"#e4e4e4\">\n", labels;
  for (double t : ticks) {
    grid += fmt::format("<line x1=\"{0:.1f}\" x2=\"{0:.1f}\" y1=\"{1}\" y2=\"{2}\"/>\n", axis.x(t), top, bottom);
    labels += fmt::format("<line class=\"tick\" x1=\"{0:.1f}\" x2=\"{0:.1f}\" y1=\"{1}\" y2=\"{2}\" stroke=\"#000\"/>\n"
                          "<text x=\"{0:.1f}\" y=\"{3}\" text-anchor=\"middle\">{4}</text>\n",
                          axis.x(t), bottom, bottom + 5, bottom + 18, escape_xml(tick_text(t, chart, step)));
  }
  std::string svg = grid + "</g>\n" + labels;
  svg += fmt::format("<line class=\"axis\" x1=\"{0}\" x2=\"{1}\" y1=\"{2}\" y2=\"{2}\" stroke=\"#000\"/>\n", kLabelWidth,
                     kLabelWidth + kBarWidth, bottom);
  const std::string title = chart.axis_title.empty() ? (axis.log ? "ratio, log scale" : "value") : chart.axis_title;
  return svg + fmt::format("<text x=\"{:.1f}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n", kLabelWidth + kBarWidth / 2,
                           bottom + 38, escape_xml(title));
}

// The whisker of a row's interval: a line from low to high, capped at both ends so that even
// a tight interval is seen.
std::string draw_interval(const BarRow& r, const ValueAxis& axis, double middle) {
  std::string svg = fmt::format("<line class=\"interval\" x1=\"{:.1f}\" x2=\"{:.1f}\" y1=\"{}\" y2=\"{}\" stroke=\"#000\" "
                                "stroke-width=\"1.5\"/>\n",
                                axis.x(r.low), axis.x(r.high), middle, middle);
  for (double v : {r.low, r.high}) {
    svg += fmt::format("<line class=\"interval-cap\" x1=\"{0:.1f}\" x2=\"{0:.1f}\" y1=\"{1}\" y2=\"{2}\" stroke=\"#000\" "
                       "stroke-width=\"1.5\"/>\n",
                       axis.x(v), middle - kCapHeight / 2, middle + kCapHeight / 2);
  }
  return svg;
}

std::string draw_row(const BarRow& r, const BarChart& chart, const ValueAxis& axis, double y) {
  std::string svg = fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>\n", kLabelWidth - 8, y + 14,
                                escape_xml(r.label));
  const double x_value = axis.x(r.value), x_base = axis.log ? axis.x(axis.base) : kLabelWidth;
  svg += fmt::format("<rect class=\"bar\" x=\"{:.1f}\" y=\"{}\" width=\"{:.1f}\" height=\"{}\" fill=\"{}\" "
                     "data-value=\"{}\"/>\n",
                     std::min(x_base, x_value), y + 3, std::abs(x_value - x_base), kRowHeight - 6,
                     r.colour.empty() ? kDefaultBarColour : r.colour, r.value);
  const bool has_interval = r.low != 0 || r.high != 0;
  if (has_interval) svg += draw_interval(r, axis, y + kRowHeight / 2);
  // Right of whatever ends furthest right: the bar, its whisker, or (a bar left of 1×) the base.
  const double label_x = std::max({x_value, has_interval ? axis.x(r.high) : x_value, x_base}) + 5;
  return svg + fmt::format("<text x=\"{:.1f}\" y=\"{}\">{}</text>\n", label_x, y + 14, escape_xml(fmt_value(r.value, chart.unit)));
}

std::string draw_group_heading(const std::string& group, double y) {
  return fmt::format("<text class=\"group\" x=\"{}\" y=\"{}\" text-anchor=\"end\" font-weight=\"bold\">{}</text>\n",
                     kLabelWidth - 8, y + 14, escape_xml(group));
}

}  // namespace

std::vector<double> ratio_ticks(double low, double high, double min_gap) {
  static constexpr double kUp[] = {1, 1.01, 1.02, 1.05, 1.1, 1.2, 1.5, 2, 3, 5, 10, 20, 50, 100, 200, 500, 1000};
  static constexpr double kDown[] = {0.99, 0.98, 0.95, 0.9, 0.8, 0.5, 0.2, 0.1, 0.05, 0.02, 0.01, 0.001};
  const double width = std::log(high) - std::log(low);
  std::vector<double> ticks;
  for (const auto& side : {std::vector<double>(std::begin(kUp), std::end(kUp)), std::vector<double>(std::begin(kDown), std::end(kDown))}) {
    double last = 1;
    for (double t : side) {
      if (t < low || t > high) continue;
      if (t != 1 && std::abs(std::log(t) - std::log(last)) < min_gap * width) continue;
      ticks.push_back(t);
      last = t;
    }
  }
  std::sort(ticks.begin(), ticks.end());
  return ticks;
}

std::string render_bar_chart_svg(const BarChart& chart) {
  const ValueAxis axis = value_axis(chart);
  std::size_t lines = std::max<std::size_t>(chart.rows.size(), 1);
  for (std::size_t i = 0; i < chart.rows.size(); ++i) {
    if (!chart.rows[i].group.empty() && (i == 0 || chart.rows[i].group != chart.rows[i - 1].group)) ++lines;
  }
  const double first_row = chart.legend.empty() ? 40 : 40 + kLegendHeight;
  const double rows_bottom = first_row + kRowHeight * static_cast<double>(lines) + 4;
  const double height = rows_bottom + kAxisHeight;
  const double width = kLabelWidth + kBarWidth + 60;
  std::string svg = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\" "
      "font-family=\"sans-serif\" font-size=\"12\">\n<text x=\"10\" y=\"20\" font-size=\"14\" font-weight=\"bold\">{2}</text>\n",
      width, height, escape_xml(chart.title));
  svg += draw_legend(chart);
  if (chart.rows.empty()) return svg + fmt::format("<text x=\"10\" y=\"{}\">no data</text>\n</svg>\n", first_row + 14);
  svg += draw_value_axis(chart, axis, first_row - 4, rows_bottom);
  double y = first_row;
  for (std::size_t i = 0; i < chart.rows.size(); ++i) {
    const BarRow& r = chart.rows[i];
    if (!r.group.empty() && (i == 0 || r.group != chart.rows[i - 1].group)) {
      svg += draw_group_heading(r.group, y);
      y += kRowHeight;
    }
    svg += draw_row(r, chart, axis, y);
    y += kRowHeight;
  }
  if (chart.reference > 0) {
    svg += fmt::format("<line x1=\"{0:.1f}\" x2=\"{0:.1f}\" y1=\"{1}\" y2=\"{2}\" stroke=\"#b00\" stroke-dasharray=\"4 3\"/>\n",
                       axis.x(chart.reference), first_row - 8, rows_bottom);
  }
  return svg + "</svg>\n";
}

}  // namespace kopt::report
