#include "kopt/report/bar_chart_svg.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "kopt/report/roofline_svg.hpp"

namespace kopt::report {
namespace {

constexpr double kBarWidth = 640;   // the drawing area of a bar chart, pixels
constexpr double kLabelWidth = 260;
constexpr double kRowHeight = 22;
constexpr double kLegendHeight = 20;

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
    x += 16 + 7.0 * static_cast<double>(text.size()) + 24;  // about 7 px a character at 12 px
  }
  return svg;
}

}  // namespace

std::string render_bar_chart_svg(const BarChart& chart) {
  double top = chart.reference;
  for (const BarRow& r : chart.rows) top = std::max({top, r.value, r.high});
  if (top <= 0) top = 1;
  top *= 1.15;  // room for the value labels
  const double first_row = chart.legend.empty() ? 40 : 40 + kLegendHeight;
  const double height = first_row + kRowHeight * static_cast<double>(std::max<std::size_t>(chart.rows.size(), 1)) + 20;
  const double width = kLabelWidth + kBarWidth + 20;
  auto x = [&](double v) { return kLabelWidth + kBarWidth * std::max(0.0, v) / top; };
  std::string svg = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\" "
      "font-family=\"sans-serif\" font-size=\"12\">\n<text x=\"10\" y=\"20\" font-size=\"14\" font-weight=\"bold\">{2}</text>\n",
      width, height, escape_xml(chart.title));
  svg += draw_legend(chart);
  if (chart.rows.empty()) svg += fmt::format("<text x=\"10\" y=\"{}\">no data</text>\n", first_row + 10);
  for (std::size_t i = 0; i < chart.rows.size(); ++i) {
    const BarRow& r = chart.rows[i];
    const double y = first_row + kRowHeight * static_cast<double>(i);
    svg += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>\n", kLabelWidth - 8, y + 14,
                       escape_xml(r.label));
    svg += fmt::format("<rect class=\"bar\" x=\"{}\" y=\"{}\" width=\"{:.1f}\" height=\"{}\" fill=\"{}\" "
                       "data-value=\"{}\"/>\n",
                       kLabelWidth, y + 3, x(r.value) - kLabelWidth, kRowHeight - 6,
                       r.colour.empty() ? kDefaultBarColour : r.colour, r.value);
    if (r.low != 0 || r.high != 0) {
      svg += fmt::format("<line class=\"interval\" x1=\"{:.1f}\" x2=\"{:.1f}\" y1=\"{}\" y2=\"{}\" stroke=\"#000\"/>\n",
                         x(r.low), x(r.high), y + kRowHeight / 2, y + kRowHeight / 2);
    }
    svg += fmt::format("<text x=\"{:.1f}\" y=\"{}\">{}</text>\n", x(std::max(r.value, r.high)) + 4, y + 14,
                       escape_xml(fmt_value(r.value, chart.unit)));
  }
  if (chart.reference > 0) {
    svg += fmt::format("<line x1=\"{0:.1f}\" x2=\"{0:.1f}\" y1=\"{1}\" y2=\"{2}\" stroke=\"#b00\" stroke-dasharray=\"4 3\"/>\n",
                       x(chart.reference), first_row - 8, height - 12);
  }
  return svg + "</svg>\n";
}

}  // namespace kopt::report
