#include "kopt/report/roofline_svg.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <iterator>

#include "kopt/core/error.hpp"

namespace kopt::report {
namespace {

constexpr double kWidth = 860, kHeight = 520;
constexpr double kLeft = 110, kRight = kWidth - 30, kTop = 60, kBottom = kHeight - 70;
constexpr std::array kPointColours = {"#d62728", "#1f77b4", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b"};
constexpr const char* kRoofColour = "#333333";

bool is_drawable(const RooflineChartPoint& point) {
  return std::isfinite(point.arithmetic_intensity) && point.arithmetic_intensity > 0 &&
         std::isfinite(point.flop_per_second) && point.flop_per_second > 0;
}

double highest_ceiling(const RooflineChart& chart) {
  double highest = 0;
  for (const auto& [name, flops] : chart.compute_ceilings) highest = std::max(highest, flops);
  return highest;
}

void check_chart(const RooflineChart& chart) {
  if (!(chart.bytes_per_second > 0)) throw input_error("roofline chart: the memory roof needs a positive bandwidth");
  if (chart.compute_ceilings.empty()) throw input_error("roofline chart: needs at least one compute ceiling");
  for (const auto& [name, flops] : chart.compute_ceilings) {
    if (!(flops > 0)) throw input_error("roofline chart: compute ceiling '{}' is not positive", name);
  }
}

class SvgWriter {
 public:
  template <typename... Args>
  void line(fmt::format_string<Args...> format, Args&&... args) {
    fmt::format_to(std::back_inserter(text_), format, std::forward<Args>(args)...);
    text_ += '\n';
  }
  std::string take() { return std::move(text_); }

 private:
  std::string text_;
};

// "0.01", "1", "1000": decade labels for the intensity axis.
std::string decade_label(int exponent) {
  return exponent >= 0 ? fmt::format("{:.0f}", std::pow(10.0, exponent)) : fmt::format("{:g}", std::pow(10.0, exponent));
}

void draw_grid(SvgWriter& svg, const RooflineAxes& axes) {
  svg.line(R"(<g class="grid" stroke="#dddddd" stroke-width="1">)");
  for (int e = axes.x_decade_min; e <= axes.x_decade_max; ++e) {
    const double x = axes.x_pixel(std::pow(10.0, e));
    svg.line(R"(<line x1="{:.1f}" y1="{:.1f}" x2="{:.1f}" y2="{:.1f}"/>)", x, axes.top, x, axes.bottom);
  }
  for (int e = axes.y_decade_min; e <= axes.y_decade_max; ++e) {
    const double y = axes.y_pixel(std::pow(10.0, e));
    svg.line(R"(<line x1="{:.1f}" y1="{:.1f}" x2="{:.1f}" y2="{:.1f}"/>)", axes.left, y, axes.right, y);
  }
  svg.line("</g>");
}

void draw_axes(SvgWriter& svg, const RooflineAxes& axes) {
  svg.line(R"(<rect x="{:.1f}" y="{:.1f}" width="{:.1f}" height="{:.1f}" fill="none" stroke="#000000"/>)", axes.left,
           axes.top, axes.right - axes.left, axes.bottom - axes.top);
  svg.line(R"(<g class="ticks" font-size="12" fill="#000000">)");
  for (int e = axes.x_decade_min; e <= axes.x_decade_max; ++e) {
    svg.line(R"(<text x="{:.1f}" y="{:.1f}" text-anchor="middle">{}</text>)", axes.x_pixel(std::pow(10.0, e)),
             axes.bottom + 18, decade_label(e));
  }
  for (int e = axes.y_decade_min; e <= axes.y_decade_max; ++e) {
    svg.line(R"(<text x="{:.1f}" y="{:.1f}" text-anchor="end">{}</text>)", axes.left - 8,
             axes.y_pixel(std::pow(10.0, e)) + 4, escape_xml(format_rate(std::pow(10.0, e), "FLOP/s")));
  }
  svg.line("</g>");
  svg.line(R"(<text x="{:.1f}" y="{:.1f}" font-size="13" text-anchor="middle">Arithmetic intensity (FLOP/byte)</text>)",
           (axes.left + axes.right) / 2, axes.bottom + 42);
  svg.line(R"svg(<text x="{0:.1f}" y="{1:.1f}" font-size="13" text-anchor="middle" transform="rotate(-90 {0:.1f} {1:.1f})">Performance (FLOP/s)</text>)svg",
           axes.left - 85, (axes.top + axes.bottom) / 2);
}

// The slope bytes/s × intensity, from the left edge to the highest ridge, labelled along it.
void draw_memory_roof(SvgWriter& svg, const RooflineAxes& axes, const RooflineChart& chart) {
  const double x_start = std::pow(10.0, axes.x_decade_min);
  const double ridge = highest_ceiling(chart) / chart.bytes_per_second;
  const double x1 = axes.x_pixel(x_start), y1 = axes.y_pixel(chart.bytes_per_second * x_start);
  const double x2 = axes.x_pixel(ridge), y2 = axes.y_pixel(highest_ceiling(chart));
  svg.line(R"(<line class="memory-roof" x1="{:.1f}" y1="{:.1f}" x2="{:.1f}" y2="{:.1f}" stroke="{}" stroke-width="2"/>)",
           x1, y1, x2, y2, kRoofColour);
  const double angle = std::atan2(y2 - y1, x2 - x1) * 180 / M_PI;
  const double lx = x1 + (x2 - x1) * 0.35, ly = y1 + (y2 - y1) * 0.35 - 6;
  svg.line(R"svg(<text x="{0:.1f}" y="{1:.1f}" font-size="12" text-anchor="middle" transform="rotate({2:.1f} {0:.1f} {1:.1f})">DRAM {3}</text>)svg",
           lx, ly, angle, escape_xml(format_rate(chart.bytes_per_second, "B/s")));
}

// Each ceiling is flat from its own ridge (where the slope reaches it) to the right edge;
// the ridge is marked with a circle and its intensity.
void draw_compute_roofs(SvgWriter& svg, const RooflineAxes& axes, const RooflineChart& chart) {
  const double x_end = axes.right;
  for (const auto& [name, flops] : chart.compute_ceilings) {
    const double ridge = flops / chart.bytes_per_second;
    const double x = axes.x_pixel(ridge), y = axes.y_pixel(flops);
    const char* dash = flops == highest_ceiling(chart) ? "" : R"( stroke-dasharray="6 4")";
    svg.line(R"(<line class="compute-roof" x1="{:.1f}" y1="{:.1f}" x2="{:.1f}" y2="{:.1f}" stroke="{}" stroke-width="2"{}/>)",
             x, y, x_end, y, kRoofColour, dash);
    svg.line(R"(<text x="{:.1f}" y="{:.1f}" font-size="12" text-anchor="end">{} {}</text>)", x_end - 6, y - 6,
             escape_xml(name), escape_xml(format_rate(flops, "FLOP/s")));
    svg.line(R"(<circle class="ridge" cx="{:.1f}" cy="{:.1f}" r="4" fill="#ffffff" stroke="{}" stroke-width="2"/>)", x,
             y, kRoofColour);
    svg.line(R"(<text x="{:.1f}" y="{:.1f}" font-size="11" fill="#555555" text-anchor="middle">ridge {:.3g} FLOP/B</text>)",
             x, y + 18, ridge);
  }
}

void draw_points(SvgWriter& svg, const RooflineAxes& axes, const RooflineChart& chart) {
  size_t colour = 0;
  for (const RooflineChartPoint& point : chart.points) {
    if (!is_drawable(point)) continue;
    const double x = axes.x_pixel(point.arithmetic_intensity), y = axes.y_pixel(point.flop_per_second);
    if (point.label.empty()) {  // an unlabelled point: one of many (the branches), drawn small and grey
      svg.line(R"(<circle class="point" cx="{:.1f}" cy="{:.1f}" r="3" fill="#999999"/>)", x, y);
      continue;
    }
    // Labels of neighbouring points are staggered over three lines so that they do not overlap.
    const double lift = 8 + 14.0 * static_cast<double>(colour % 3);
    const char* fill = kPointColours[colour++ % kPointColours.size()];
    // Near the right edge the label goes to the left of the point, so it stays in the chart.
    const bool label_left = x > axes.right - 200;
    svg.line(R"(<circle class="point" cx="{:.1f}" cy="{:.1f}" r="5" fill="{}"/>)", x, y, fill);
    svg.line(R"(<text x="{:.1f}" y="{:.1f}" font-size="12" text-anchor="{}" fill="{}">{} ({}, {:.3g} FLOP/B)</text>)",
             label_left ? x - 9 : x + 9, y - lift, label_left ? "end" : "start", fill, escape_xml(point.label),
             escape_xml(format_rate(point.flop_per_second, "FLOP/s")), point.arithmetic_intensity);
  }
}

void note_omitted_points(SvgWriter& svg, const RooflineAxes& axes, const RooflineChart& chart) {
  std::string omitted;
  for (const RooflineChartPoint& point : chart.points) {
    if (is_drawable(point)) continue;
    omitted += (omitted.empty() ? "" : ", ") + point.label;
  }
  if (omitted.empty()) return;
  svg.line(R"(<text class="note" x="{:.1f}" y="{:.1f}" font-size="12" fill="#555555">Not shown (intensity or FLOP/s unknown): {}</text>)",
           axes.left + 8, axes.top + 18, escape_xml(omitted));
}

}  // namespace

double RooflineAxes::x_pixel(double intensity) const {
  const double t = (std::log10(intensity) - x_decade_min) / (x_decade_max - x_decade_min);
  return left + t * (right - left);
}

double RooflineAxes::y_pixel(double flop_per_second) const {
  const double t = (std::log10(flop_per_second) - y_decade_min) / (y_decade_max - y_decade_min);
  return bottom - t * (bottom - top);
}

RooflineAxes roofline_axes(const RooflineChart& chart) {
  check_chart(chart);
  std::vector<double> intensities, rates;
  for (const auto& [name, flops] : chart.compute_ceilings) {
    intensities.push_back(flops / chart.bytes_per_second);
    rates.push_back(flops);
  }
  for (const RooflineChartPoint& point : chart.points) {
    if (!is_drawable(point)) continue;
    intensities.push_back(point.arithmetic_intensity);
    rates.push_back(point.flop_per_second);
  }
  RooflineAxes axes{.left = kLeft, .right = kRight, .top = kTop, .bottom = kBottom};
  axes.x_decade_min = static_cast<int>(std::floor(std::log10(std::ranges::min(intensities)))) - 1;
  axes.x_decade_max = static_cast<int>(std::ceil(std::log10(std::ranges::max(intensities)))) + 1;
  // The slope starts at the left edge, so its lowest FLOP/s is bandwidth × 10^x_min; the
  // headroom over the highest ceiling leaves its label inside the plot.
  rates.push_back(chart.bytes_per_second * std::pow(10.0, axes.x_decade_min));
  axes.y_decade_min = static_cast<int>(std::floor(std::log10(std::ranges::min(rates))));
  axes.y_decade_max = static_cast<int>(std::ceil(std::log10(std::ranges::max(rates) * 2)));
  return axes;
}

std::string render_roofline_svg(const RooflineChart& chart) {
  const RooflineAxes axes = roofline_axes(chart);
  SvgWriter svg;
  svg.line(R"(<?xml version="1.0" encoding="UTF-8"?>)");
  svg.line(R"(<svg xmlns="http://www.w3.org/2000/svg" width="{0:.0f}" height="{1:.0f}" viewBox="0 0 {0:.0f} {1:.0f}" font-family="sans-serif">)",
           kWidth, kHeight);
  svg.line(R"(<rect width="100%" height="100%" fill="#ffffff"/>)");
  svg.line(R"(<text x="{:.1f}" y="30" font-size="16" font-weight="bold" text-anchor="middle">{}</text>)", kWidth / 2,
           escape_xml(chart.title.empty() ? "Roofline" : chart.title));
  draw_grid(svg, axes);
  draw_axes(svg, axes);
  draw_memory_roof(svg, axes, chart);
  draw_compute_roofs(svg, axes, chart);
  draw_points(svg, axes, chart);
  note_omitted_points(svg, axes, chart);
  svg.line("</svg>");
  return svg.take();
}

std::string format_rate(double per_second, const std::string& unit) {
  static constexpr std::array kPrefixes = {"", "k", "M", "G", "T", "P", "E"};
  int group = per_second > 0 ? static_cast<int>(std::floor(std::log10(per_second) / 3)) : 0;
  group = std::clamp(group, 0, static_cast<int>(kPrefixes.size()) - 1);
  return fmt::format("{:.3g} {}{}", per_second / std::pow(1000.0, group), kPrefixes[group], unit);
}

std::string escape_xml(const std::string& text) {
  std::string escaped;
  for (char c : text) {
    switch (c) {
      case '&': escaped += "&amp;"; break;
      case '<': escaped += "&lt;"; break;
      case '>': escaped += "&gt;"; break;
      case '"': escaped += "&quot;"; break;
      case '\'': escaped += "&apos;"; break;
      default: escaped += c;
    }
  }
  return escaped;
}

}  // namespace kopt::report
