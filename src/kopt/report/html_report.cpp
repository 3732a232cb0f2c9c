#include "kopt/report/html_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "kopt/core/files.hpp"
#include "kopt/report/roofline_svg.hpp"
#include "kopt/report/run_summary.hpp"

namespace kopt::report {
namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

constexpr double kBarWidth = 640;   // the drawing area of a bar chart, pixels
constexpr double kLabelWidth = 260;
constexpr double kRowHeight = 22;

double number_or(const json& node, double fallback) { return node.is_number() ? node.get<double>() : fallback; }

std::string fmt_value(double v, const std::string& unit) {
  return unit == "%" ? fmt::format("{:.0f} %", v) : fmt::format("{:.3g}{}", v, unit);
}

}  // namespace

std::string render_bar_chart_svg(const BarChart& chart) {
  double top = chart.reference;
  for (const BarRow& r : chart.rows) top = std::max({top, r.value, r.high});
  if (top <= 0) top = 1;
  top *= 1.15;  // room for the value labels
  const double height = 40 + kRowHeight * static_cast<double>(std::max<std::size_t>(chart.rows.size(), 1)) + 20;
  const double width = kLabelWidth + kBarWidth + 20;
  auto x = [&](double v) { return kLabelWidth + kBarWidth * std::max(0.0, v) / top; };
  std::string svg = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\" "
      "font-family=\"sans-serif\" font-size=\"12\">\n<text x=\"10\" y=\"20\" font-size=\"14\" font-weight=\"bold\">{2}</text>\n",
      width, height, escape_xml(chart.title));
  if (chart.rows.empty()) svg += "<text x=\"10\" y=\"50\">no data</text>\n";
  for (std::size_t i = 0; i < chart.rows.size(); ++i) {
    const BarRow& r = chart.rows[i];
    const double y = 40 + kRowHeight * static_cast<double>(i);
    svg += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>\n", kLabelWidth - 8, y + 14,
                       escape_xml(r.label));
    svg += fmt::format("<rect class=\"bar\" x=\"{}\" y=\"{}\" width=\"{:.1f}\" height=\"{}\" fill=\"#4a7ab5\" "
                       "data-value=\"{}\"/>\n",
                       kLabelWidth, y + 3, x(r.value) - kLabelWidth, kRowHeight - 6, r.value);
    if (r.low != 0 || r.high != 0) {
      svg += fmt::format("<line class=\"interval\" x1=\"{:.1f}\" x2=\"{:.1f}\" y1=\"{}\" y2=\"{}\" stroke=\"#000\"/>\n",
                         x(r.low), x(r.high), y + kRowHeight / 2, y + kRowHeight / 2);
    }
    svg += fmt::format("<text x=\"{:.1f}\" y=\"{}\">{}</text>\n", x(std::max(r.value, r.high)) + 4, y + 14,
                       escape_xml(fmt_value(r.value, chart.unit)));
  }
  if (chart.reference > 0) {
    svg += fmt::format("<line x1=\"{0:.1f}\" x2=\"{0:.1f}\" y1=\"32\" y2=\"{1}\" stroke=\"#b00\" stroke-dasharray=\"4 3\"/>\n",
                       x(chart.reference), height - 12);
  }
  return svg + "</svg>\n";
}

json report_charts(const json& s) {
  json charts;
  // Roofline: measured points (ncu) for the baseline and the champions, the spec's work over
  // the median for every branch that passed.
  const json& base_roof = s.at("baseline_roofline");
  if (base_roof.is_object() && base_roof.contains("peaks")) {
    json points = json::array();
    auto measured = [&](const std::string& label, const json& roof) {
      if (!roof.is_object()) return;
      points.push_back({{"label", label}, {"kind", "measured"},
                        {"intensity", number_or(roof.value("arithmetic_intensity", json()), 0)},
                        {"flop_per_second", roof.at("achieved").value("flop_per_second", 0.0)}});
    };
    measured("baseline", base_roof);
    for (const json& it : s.at("iterations")) measured(fmt::format("iter{} champion", it.at("index").get<int>()), it.at("champion_roofline"));
    const json& work = s.at("work");
    if (work.is_object() && work.at("bytes").get<double>() > 0) {
      const double intensity = work.at("flops").get<double>() / work.at("bytes").get<double>();
      for (const json& f : s.at("frontier")) {
        points.push_back({{"label", fmt::format("iter{} {}", f.at("iteration").get<int>(), f.at("branch").get<std::string>())},
                          {"kind", "branch"}, {"intensity", intensity},
                          {"flop_per_second", work.at("flops").get<double>() / f.at("median_s").get<double>()}});
      }
    }
    charts["roofline"] = {{"bytes_per_second", base_roof.at("peaks").at("bytes_per_second")},
                          {"ceiling", base_roof.value("compute_ceiling", "compute")},
                          {"flop_per_second", base_roof.at("peaks").at("flop_per_second")},
                          {"points", points}};
  }
  json speedup = json::array(), gaps = json::array(), methods = json::array();
  const double baseline = s.at("baseline_median_s");
  for (const json& it : s.at("iterations")) {
    const int i = it.at("index");
    speedup.push_back({{"label", fmt::format("after iter{} ({})", i, it.at("verdict").get<std::string>())},
                       {"value", baseline / it.at("best_after_s").get<double>()}});
    const json& ev = it.at("evidence_in");
    if (ev.is_object() && ev.contains("gaps")) {
      for (const char* axis : {"compute", "memory", "latency"}) {
        gaps.push_back({{"label", fmt::format("iter{} {}", i, axis)}, {"value", 100 * ev["gaps"].value(axis, 0.0)}});
      }
    }
  }
  for (const json& m : s.at("ledger")) {
    if (!m.contains("time_ratio_without")) continue;
    methods.push_back({{"label", fmt::format("iter{} {}", m.at("iteration").get<int>(), m.at("id").get<std::string>())},
                       {"value", m.at("time_ratio_without")}, {"low", m.at("time_ratio_without_ci").at(0)},
                       {"high", m.at("time_ratio_without_ci").at(1)}, {"class", m.value("class", "")}});
  }
  json medians = json::array();
  auto median_row = [&](const std::string& label, double median, const json& ci) {
    json row = {{"label", label}, {"value", median * 1e6}};
    if (ci.is_array()) {
      row["low"] = ci.at(0).get<double>() * 1e6;
      row["high"] = ci.at(1).get<double>() * 1e6;
    }
    medians.push_back(row);
  };
  median_row("baseline", baseline, s.at("baseline_median_ci_s"));
  median_row("best", s.at("best_median_s"), s.at("best_median_ci_s"));
  charts["speedup"] = speedup;
  charts["gaps"] = gaps;
  charts["methods"] = methods;
  charts["medians_us"] = medians;
  return charts;
}

namespace {

BarChart bar_chart(const std::string& title, const std::string& unit, const json& rows, double reference) {
  BarChart chart{.title = title, .unit = unit, .reference = reference};
  for (const json& r : rows) {
    chart.rows.push_back({r.at("label"), r.at("value"), r.value("low", 0.0), r.value("high", 0.0)});
  }
  return chart;
}

std::string roofline_svg(const json& roof) {
  RooflineChart chart{.bytes_per_second = roof.at("bytes_per_second"),
                      .compute_ceilings = {{roof.at("ceiling"), roof.at("flop_per_second")}},
                      .title = "Roofline: baseline and champions (Nsight Compute); grey: branches (spec work / median)"};
  for (const json& p : roof.at("points")) {
    // The branches are many: grey dots without labels; the measured points are named.
    const std::string label = p.at("kind") == "branch" ? "" : p.at("label").get<std::string>();
    chart.points.push_back({label, p.at("intensity"), p.at("flop_per_second")});
  }
  return render_roofline_svg(chart);
}

}  // namespace

std::string render_html_report(const json& summary) {
  const json charts = report_charts(summary);
  std::string body;
  auto section = [&](const std::string& id, const std::string& title, const std::string& svg) {
    body += fmt::format("<section id=\"{}\"><h2>{}</h2>\n{}</section>\n", id, escape_xml(title), svg);
  };
  if (charts.contains("roofline")) section("roofline", "Roofline", roofline_svg(charts["roofline"]));
  section("speedup", "Speedup over the baseline",
          render_bar_chart_svg(bar_chart("Speedup over the baseline after each iteration", "×", charts["speedup"], 1)));
  section("gaps", "Bottleneck gaps", render_bar_chart_svg(bar_chart("Gap to each ceiling going into each iteration", "%",
                                                                     charts["gaps"], 0)));
  section("methods", "Method contributions",
          render_bar_chart_svg(bar_chart("Time without each method / time with it (95 % interval)", "×",
                                         charts["methods"], 1)));
  section("medians", "Baseline and best",
          render_bar_chart_svg(bar_chart("Median time per solve call, µs (95 % interval)", " µs", charts["medians_us"], 0)));
  // The summary's Markdown, shown as text: the tables people copy from.
  const std::string markdown = format_run_summary(summary);
  return fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>kopt report: {0}</title>\n"
      "<style>body{{font-family:sans-serif;max-width:1000px;margin:2em auto;padding:0 1em}}"
      "svg.chart,section svg{{max-width:100%;height:auto;display:block}}"
      "pre{{white-space:pre-wrap;overflow-wrap:anywhere;background:#f6f6f6;padding:1em}}</style></head>\n"
      "<body><h1>kopt report: {0}</h1>\n<p>{1:.2f}× faster than the baseline.</p>\n{2}"
      "<section id=\"summary\"><h2>Summary</h2><pre>{3}</pre></section>\n"
      "</body></html>\n",
      escape_xml(fs::path(summary.at("kernel").get<std::string>()).filename().string()),
      summary.at("speedup_vs_baseline").get<double>(), body, escape_xml(markdown));
}

json write_html_report(const loop::RunFolder& run) {
  const json summary = write_run_summary(run);
  write_file_atomic(run.root() / "report.html", render_html_report(summary));
  return summary;
}

}  // namespace kopt::report
