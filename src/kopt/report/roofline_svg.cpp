#include "kopt/report/roofline_svg.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <iterator>

#include "kopt/core/error.hpp"
#include "kopt/report/svg_text.hpp"

namespace kopt::report {
namespace {

constexpr double kWidth = 860, kHeight = 520;
constexpr double kLeft = 112, kRight = kWidth - 30, kTop = 50, kBottom = kHeight - 70;
constexpr std::array kPointColours = {"#d62728", "#1f77b4", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b"};
constexpr const char* kRoofColour = "#333333";
constexpr double kLabelSize = 12;    // the labels of roofs and points, px
constexpr double kLabelStep = 14;    // one label line, px: how far a displaced label moves
constexpr int kLabelRows = 12;       // how many lines up or down a point's label may move

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

// "0.01", "2", "1000": tick labels for the intensity axis.
std::string intensity_label(double value) { return fmt::format("{:g}", value); }

const char* anchor_name(TextAnchor anchor) {
  return anchor == TextAnchor::start ? "start" : anchor == TextAnchor::middle ? "middle" : "end";
}

// A label of the roofs and points: where it goes, and its text.
struct Label {
  double x = 0, y = 0;
  TextAnchor anchor = TextAnchor::start;
  std::string text;
  TextBox box() const { return text_box(x, y, kLabelSize, display_length(text), anchor); }
};

// The first of `candidates` that is free (reserved in `placer`), else the first one.
Label place_label(LabelPlacer& placer, const std::vector<Label>& candidates) {
  std::vector<TextBox> boxes;
  for (const Label& c : candidates) boxes.push_back(c.box());
  const int chosen = placer.place(boxes);
  return candidates.at(chosen < 0 ? 0 : static_cast<std::size_t>(chosen));
}

void draw_grid(SvgWriter& svg, const RooflineAxes& axes) {
  svg.line(R"(<g class="grid" stroke="#dddddd" stroke-width="1">)");
  for (double v : log_ticks(axes.x_log_min, axes.x_log_max)) {
    const double x = axes.x_pixel(v);
    svg.line(R"(<line x1="{:.1f}" y1="{:.1f}" x2="{:.1f}" y2="{:.1f}"/>)", x, axes.top, x, axes.bottom);
  }
  for (double v : log_ticks(axes.y_log_min, axes.y_log_max)) {
    const double y = axes.y_pixel(v);
    svg.line(R"(<line x1="{:.1f}" y1="{:.1f}" x2="{:.1f}" y2="{:.1f}"/>)", axes.left, y, axes.right, y);
  }
  svg.line("</g>");
}

// The frame, the tick marks and labels of both axes, and the axis titles with their units;
// every text drawn is reserved in `placer`.
void draw_axes(SvgWriter& svg, const RooflineAxes& axes, LabelPlacer& placer) {
  svg.line(R"(<rect x="{:.1f}" y="{:.1f}" width="{:.1f}" height="{:.1f}" fill="none" stroke="#000000"/>)", axes.left,
           axes.top, axes.right - axes.left, axes.bottom - axes.top);
  svg.line(R"(<g class="ticks" font-size="12" fill="#000000">)");
  for (double v : log_ticks(axes.x_log_min, axes.x_log_max)) {
    const double x = axes.x_pixel(v);
    svg.line(R"(<line x1="{0:.1f}" x2="{0:.1f}" y1="{1:.1f}" y2="{2:.1f}" stroke="#000000"/>)", x, axes.bottom, axes.bottom + 5);
    svg.line(R"(<text x="{:.1f}" y="{:.1f}" text-anchor="middle">{}</text>)", x, axes.bottom + 19, intensity_label(v));
    placer.reserve(text_box(x, axes.bottom + 19, 12, intensity_label(v).size(), TextAnchor::middle));
  }
  for (double v : log_ticks(axes.y_log_min, axes.y_log_max)) {
    const double y = axes.y_pixel(v);
    svg.line(R"(<line x1="{0:.1f}" x2="{1:.1f}" y1="{2:.1f}" y2="{2:.1f}" stroke="#000000"/>)", axes.left - 5, axes.left, y);
    svg.line(R"(<text x="{:.1f}" y="{:.1f}" text-anchor="end">{}</text>)", axes.left - 8, y + 4,
             escape_xml(format_rate(v, "FLOP/s")));
  }
  svg.line("</g>");
  svg.line(R"(<text x="{:.1f}" y="{:.1f}" font-size="13" text-anchor="middle">Arithmetic intensity (FLOP/byte)</text>)",
           (axes.left + axes.right) / 2, axes.bottom + 44);
  // Left of the widest tick label ("200 GFLOP/s", about 80 px at 12 px).
  svg.line(R"svg(<text x="{0:.1f}" y="{1:.1f}" font-size="13" text-anchor="middle" transform="rotate(-90 {0:.1f} {1:.1f})">Performance (FLOP/s)</text>)svg",
           axes.left - 96, (axes.top + axes.bottom) / 2);
}

// The slope bytes/s × intensity, from where it enters the plot to the highest ridge; its
// label is level, above and left of the slope, where the plot is empty.
void draw_memory_roof(SvgWriter& svg, const RooflineAxes& axes, const RooflineChart& chart, LabelPlacer& placer) {
  const double ridge = highest_ceiling(chart) / chart.bytes_per_second;
  const double x_start = std::max(std::pow(10.0, axes.x_log_min), std::pow(10.0, axes.y_log_min) / chart.bytes_per_second);
  const double x1 = axes.x_pixel(x_start), y1 = axes.y_pixel(chart.bytes_per_second * x_start);
  const double x2 = axes.x_pixel(ridge), y2 = axes.y_pixel(highest_ceiling(chart));
  svg.line(R"(<line class="memory-roof" x1="{:.1f}" y1="{:.1f}" x2="{:.1f}" y2="{:.1f}" stroke="{}" stroke-width="2"/>)",
           x1, y1, x2, y2, kRoofColour);
  const std::string text = "DRAM " + format_rate(chart.bytes_per_second, "B/s");
  std::vector<Label> candidates;
  for (double t : {0.5, 0.35, 0.65, 0.2, 0.8}) {
    const double x = x1 + (x2 - x1) * t, y = y1 + (y2 - y1) * t;
    candidates.push_back({x - 8, y - 4, TextAnchor::end, text});
    candidates.push_back({x + 8, y + 14, TextAnchor::start, text});
  }
  const Label label = place_label(placer, candidates);
  svg.line(R"(<text class="roof-label" x="{:.1f}" y="{:.1f}" font-size="12" text-anchor="{}">{}</text>)", label.x,
           label.y, anchor_name(label.anchor), escape_xml(label.text));
}

// Each ceiling is flat from its own ridge (where the slope reaches it) to the right edge;
// the ridge is marked with a circle and its intensity.
void draw_compute_roofs(SvgWriter& svg, const RooflineAxes& axes, const RooflineChart& chart, LabelPlacer& placer) {
  for (const auto& [name, flops] : chart.compute_ceilings) {
    const double ridge = flops / chart.bytes_per_second;
    const double x = axes.x_pixel(ridge), y = axes.y_pixel(flops);
    const char* dash = flops == highest_ceiling(chart) ? "" : R"( stroke-dasharray="6 4")";
    svg.line(R"(<line class="compute-roof" x1="{:.1f}" y1="{:.1f}" x2="{:.1f}" y2="{:.1f}" stroke="{}" stroke-width="2"{}/>)",
             x, y, axes.right, y, kRoofColour, dash);
    svg.line(R"(<circle class="ridge" cx="{:.1f}" cy="{:.1f}" r="4" fill="#ffffff" stroke="{}" stroke-width="2"/>)", x,
             y, kRoofColour);
    const std::string roof_text = name + " " + format_rate(flops, "FLOP/s");
    const Label roof = place_label(placer, {{axes.right - 6, y - 6, TextAnchor::end, roof_text},
                                            {axes.right - 6, y + 16, TextAnchor::end, roof_text}});
    svg.line(R"(<text class="roof-label" x="{:.1f}" y="{:.1f}" font-size="12" text-anchor="end">{}</text>)", roof.x,
             roof.y, escape_xml(roof.text));
    const std::string ridge_text = fmt::format("ridge {:.3g} FLOP/B", ridge);
    // Below and right of the ridge: under the flat roof and clear of the slope, which comes
    // up from the left.
    const Label label = place_label(placer, {{x + 8, y + 20, TextAnchor::start, ridge_text},
                                             {x + 8, y + 34, TextAnchor::start, ridge_text},
                                             {x - 8, y - 8, TextAnchor::end, ridge_text}});
    svg.line(R"(<text class="ridge-label" x="{:.1f}" y="{:.1f}" font-size="12" fill="#555555" text-anchor="{}">{}</text>)",
             label.x, label.y, anchor_name(label.anchor), escape_xml(label.text));
  }
}

// Right of the point first, then left, each at its own height and then a line further up or
// down at a time; a label that had to move is tied to its point by a thin line.
std::vector<Label> point_label_candidates(double x, double y, const std::string& text) {
  std::vector<Label> candidates;
  for (TextAnchor side : {TextAnchor::start, TextAnchor::end}) {
    const double label_x = side == TextAnchor::start ? x + 9 : x - 9;
    candidates.push_back({label_x, y + 4, side, text});
    for (int row = 1; row <= kLabelRows; ++row) {
      candidates.push_back({label_x, y + 4 - kLabelStep * row, side, text});
      candidates.push_back({label_x, y + 4 + kLabelStep * row, side, text});
    }
  }
  return candidates;
}

std::string point_label_text(const RooflineChartPoint& point) {
  return fmt::format("{} {}", point.label, format_rate(point.flop_per_second, "FLOP/s"));
}

// Every marker is reserved before any label is placed, so that no label covers a point.
void reserve_markers(const RooflineAxes& axes, const RooflineChart& chart, LabelPlacer& placer) {
  for (const RooflineChartPoint& point : chart.points) {
    if (!is_drawable(point)) continue;
    const double x = axes.x_pixel(point.arithmetic_intensity), y = axes.y_pixel(point.flop_per_second);
    const double r = point.label.empty() ? 3 : 5;
    placer.reserve({x - r, y - r, x + r, y + r});
  }
}

void draw_points(SvgWriter& svg, const RooflineAxes& axes, const RooflineChart& chart, LabelPlacer& placer) {
  // The branches are many: small grey dots without labels, under the named points.
  for (const RooflineChartPoint& point : chart.points) {
    if (!is_drawable(point) || !point.label.empty()) continue;
    svg.line(R"(<circle class="point" cx="{:.1f}" cy="{:.1f}" r="3" fill="#999999"/>)",
             axes.x_pixel(point.arithmetic_intensity), axes.y_pixel(point.flop_per_second));
  }
  std::size_t colour = 0;
  for (const RooflineChartPoint& point : chart.points) {
    if (!is_drawable(point) || point.label.empty()) continue;
    const double x = axes.x_pixel(point.arithmetic_intensity), y = axes.y_pixel(point.flop_per_second);
    const char* fill = kPointColours[colour++ % kPointColours.size()];
    svg.line(R"(<circle class="point" cx="{:.1f}" cy="{:.1f}" r="5" fill="{}"/>)", x, y, fill);
    const Label label = place_label(placer, point_label_candidates(x, y, point_label_text(point)));
    if (std::abs(label.y - 4 - y) > 1) {
      const double end_x = label.anchor == TextAnchor::start ? label.x - 2 : label.x + 2;
      svg.line(R"(<line class="leader" x1="{:.1f}" y1="{:.1f}" x2="{:.1f}" y2="{:.1f}" stroke="{}" stroke-width="0.8"/>)",
               x, y, end_x, label.y - 4, fill);
    }
    svg.line(R"(<text x="{:.1f}" y="{:.1f}" font-size="12" text-anchor="{}" fill="{}">{}</text>)", label.x, label.y,
             anchor_name(label.anchor), fill, escape_xml(label.text));
  }
}

void note_omitted_points(SvgWriter& svg, const RooflineAxes& axes, const RooflineChart& chart, LabelPlacer& placer) {
  std::string omitted;
  for (const RooflineChartPoint& point : chart.points) {
    if (is_drawable(point)) continue;
    omitted += (omitted.empty() ? "" : ", ") + point.label;
  }
  if (omitted.empty()) return;
  const std::string text = "Not shown (intensity or FLOP/s unknown): " + omitted;
  placer.reserve(text_box(axes.left + 8, axes.top + 18, 12, display_length(text), TextAnchor::start));
  svg.line(R"(<text class="note" x="{:.1f}" y="{:.1f}" font-size="12" fill="#555555">{}</text>)", axes.left + 8,
           axes.top + 18, escape_xml(text));
}

}  // namespace

double RooflineAxes::x_pixel(double intensity) const {
  const double t = (std::log10(intensity) - x_log_min) / (x_log_max - x_log_min);
  return left + t * (right - left);
}

double RooflineAxes::y_pixel(double flop_per_second) const {
  const double t = (std::log10(flop_per_second) - y_log_min) / (y_log_max - y_log_min);
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
  // Half a decade across on each side: room for the slope's start and the labels beside the
  // outermost points. Up: a factor 2 under the lowest point (its label may go below it) and
  // over the highest roof (its label goes above it).
  axes.x_log_min = std::log10(std::ranges::min(intensities)) - 0.5;
  axes.x_log_max = std::log10(std::ranges::max(intensities)) + 0.5;
  axes.y_log_min = std::log10(std::ranges::min(rates)) - 0.3;
  axes.y_log_max = std::log10(std::ranges::max(rates)) + 0.3;
  return axes;
}

std::vector<double> log_ticks(double log_min, double log_max) {
  const bool decades_only = log_max - log_min > 2.5;
  std::vector<double> ticks;
  for (int e = static_cast<int>(std::floor(log_min)); e <= static_cast<int>(std::ceil(log_max)); ++e) {
    for (double m : {1.0, 2.0, 5.0}) {
      if (decades_only && m != 1.0) continue;
      const double value = m * std::pow(10.0, e);
      if (std::log10(value) >= log_min && std::log10(value) <= log_max) ticks.push_back(value);
    }
  }
  return ticks;
}

std::string render_roofline_svg(const RooflineChart& chart) {
  const RooflineAxes axes = roofline_axes(chart);
  LabelPlacer placer({axes.left, axes.top, axes.right, axes.bottom + 60});
  SvgWriter svg;
  svg.line(R"(<?xml version="1.0" encoding="UTF-8"?>)");
  svg.line(R"(<svg xmlns="http://www.w3.org/2000/svg" width="{0:.0f}" height="{1:.0f}" viewBox="0 0 {0:.0f} {1:.0f}" font-family="sans-serif">)",
           kWidth, kHeight);
  svg.line(R"(<rect width="100%" height="100%" fill="#ffffff"/>)");
  svg.line(R"(<text x="{:.1f}" y="30" font-size="16" font-weight="bold" text-anchor="middle">{}</text>)", kWidth / 2,
           escape_xml(chart.title.empty() ? "Roofline" : chart.title));
  draw_grid(svg, axes);
  draw_axes(svg, axes, placer);
  note_omitted_points(svg, axes, chart, placer);
  reserve_markers(axes, chart, placer);
  draw_compute_roofs(svg, axes, chart, placer);
  draw_memory_roof(svg, axes, chart, placer);
  draw_points(svg, axes, chart, placer);
  svg.line("</svg>");
  return svg.take();
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

std::string render_roofline_svg(const roofline::RooflineAnalysis& analysis, const std::string& label) {
  RooflineChart chart{.bytes_per_second = analysis.inputs.peak_bytes_per_second,
                      .compute_ceilings = {{analysis.compute_ceiling, analysis.inputs.peak_flop_per_second}},
                      .title = label + (analysis.degraded ? " (analytic: no counters)" : "")};
  chart.points.push_back(
      {label, analysis.point.arithmetic_intensity.value_or(0.0), analysis.inputs.achieved_flop_per_second});
  return render_roofline_svg(chart);
}

}  // namespace kopt::report
