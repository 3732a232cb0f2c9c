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

double number_or(const json& node, double fallback) { return node.is_number() ? node.get<double>() : fallback; }

}  // namespace

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

std::string render_html_report(const json& summary, const std::vector<SampleDistribution>& distributions) {
  const json charts = report_charts(summary);
  std::string body = fmt::format("<p>{:.2f}× faster than the baseline.</p>\n", summary.at("speedup_vs_baseline").get<double>());
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
  section("samples", "Distribution of the samples", render_distribution_svg(distributions));
  // The summary's Markdown, shown as text: the tables people copy from.
  body += fmt::format("<section id=\"summary\"><h2>Summary</h2><pre>{}</pre></section>\n",
                      escape_xml(format_run_summary(summary)));
  return html_page("kopt report: " + fs::path(summary.at("kernel").get<std::string>()).filename().string(), body);
}

std::string html_page(const std::string& title, const std::string& body) {
  return fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{0}</title>\n"
      "<style>body{{font-family:sans-serif;max-width:1000px;margin:2em auto;padding:0 1em}}"
      "svg.chart,section svg{{max-width:100%;height:auto;display:block}}"
      "table{{border-collapse:collapse;margin:1em 0}}td,th{{border:1px solid #ccc;padding:.3em .6em;text-align:left;"
      "overflow-wrap:anywhere}}"
      "pre{{white-space:pre-wrap;overflow-wrap:anywhere;background:#f6f6f6;padding:1em}}</style></head>\n"
      "<body><h1>{0}</h1>\n{1}</body></html>\n",
      escape_xml(title), body);
}

json write_html_report(const loop::RunFolder& run) {
  const json summary = write_run_summary(run);
  write_file_atomic(run.root() / "report.html", render_html_report(summary, kept_sample_distributions(run, summary)));
  return summary;
}

}  // namespace kopt::report
