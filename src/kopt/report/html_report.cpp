#include "kopt/report/html_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "kopt/core/files.hpp"
#include "kopt/report/markdown_html.hpp"
#include "kopt/report/roofline_svg.hpp"
#include "kopt/report/run_summary.hpp"

namespace kopt::report {
namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

double number_or(const json& node, double fallback) { return node.is_number() ? node.get<double>() : fallback; }

}  // namespace

namespace {

// A variant at the spec's work per call over its median: the one place on the roofline that
// every variant has (the branches were timed, not profiled).
json spec_point(const std::string& label, const std::string& kind, const json& work, double median_s) {
  const double flops = work.at("flops").get<double>(), bytes = work.at("bytes").get<double>();
  return {{"label", label}, {"kind", kind}, {"intensity", flops / bytes}, {"flop_per_second", flops / median_s},
          {"median_s", median_s}};
}

bool has_spec_work(const json& work) {
  return work.is_object() && work.at("bytes").get<double>() > 0 && work.at("flops").get<double>() > 0;
}

// With the spec's work: the baseline, every champion and every branch that passed, each at
// the spec's intensity and its work over its median. Without: the baseline and the champions
// as Nsight Compute measured them (its FLOP/s and DRAM bytes). Either way one definition of
// x and y for every point, so that one kernel never sits at two intensities.
json roofline_points(const json& s, std::string& definition) {
  json points = json::array();
  const json& work = s.at("work");
  if (has_spec_work(work)) {
    definition = "spec";
    points.push_back(spec_point("baseline", "measured", work, s.at("baseline_median_s")));
    for (const json& it : s.at("iterations")) {
      if (!it.contains("champion_median_s") || !it.at("champion_median_s").is_number()) continue;
      points.push_back(spec_point(fmt::format("iter{} champion", it.at("index").get<int>()), "measured", work,
                                  it.at("champion_median_s")));
    }
    for (const json& f : s.at("frontier")) {
      points.push_back(spec_point(fmt::format("iter{} {}", f.at("iteration").get<int>(), f.at("branch").get<std::string>()),
                                  "branch", work, f.at("median_s")));
    }
    return points;
  }
  definition = "ncu";
  auto measured = [&](const std::string& label, const json& roof) {
    if (!roof.is_object()) return;
    points.push_back({{"label", label}, {"kind", "measured"},
                      {"intensity", number_or(roof.value("arithmetic_intensity", json()), 0)},
                      {"flop_per_second", roof.at("achieved").value("flop_per_second", 0.0)}});
  };
  measured("baseline", s.at("baseline_roofline"));
  for (const json& it : s.at("iterations")) measured(fmt::format("iter{} champion", it.at("index").get<int>()), it.at("champion_roofline"));
  return points;
}

}  // namespace

json report_charts(const json& s) {
  json charts;
  // The roofs are the baseline profile's (measured peaks, or the datasheet's: "source").
  const json& base_roof = s.at("baseline_roofline");
  if (base_roof.is_object() && base_roof.contains("peaks")) {
    std::string definition;
    const json points = roofline_points(s, definition);
    charts["roofline"] = {{"bytes_per_second", base_roof.at("peaks").at("bytes_per_second")},
                          {"ceiling", base_roof.value("compute_ceiling", "compute")},
                          {"flop_per_second", base_roof.at("peaks").at("flop_per_second")},
                          {"peaks_source", base_roof.at("peaks").value("source", "")},
                          {"points", points}, {"definition", definition}};
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
        gaps.push_back({{"label", axis}, {"group", fmt::format("iteration {}", i)}, {"series", axis},
                        {"value", 100 * ev["gaps"].value(axis, 0.0)}});
      }
    }
  }
  for (const json& m : s.at("ledger")) {
    if (!m.contains("time_ratio_without")) continue;
    methods.push_back({{"label", m.at("id")}, {"group", fmt::format("iteration {}", m.at("iteration").get<int>())},
                       {"value", m.at("time_ratio_without")}, {"low", m.at("time_ratio_without_ci").at(0)},
                       {"high", m.at("time_ratio_without_ci").at(1)}, {"series", m.value("class", "")}});
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

// The colour of each series of a chart, and the legend naming them (in this order).
using SeriesColours = std::vector<std::pair<std::string, std::string>>;  // {series, colour}

BarChart bar_chart(const std::string& title, const std::string& unit, const json& rows, double reference,
                   const SeriesColours& series = {}) {
  BarChart chart{.title = title, .unit = unit, .reference = reference};
  for (const json& r : rows) {
    BarRow row{r.at("label"), r.at("value"), r.value("low", 0.0), r.value("high", 0.0), "", r.value("group", "")};
    for (const auto& [name, colour] : series) {
      if (r.value("series", "") == name) row.colour = colour;
    }
    chart.rows.push_back(row);
  }
  for (const auto& [name, colour] : series) {
    const bool used = std::ranges::any_of(rows, [&](const json& r) { return r.value("series", "") == name; });
    if (used) chart.legend.push_back({colour, name});
  }
  return chart;
}

const SeriesColours kGapColours = {{"compute", "#d62728"}, {"memory", "#1f77b4"}, {"latency", "#ff7f0e"}};
const SeriesColours kMethodColours = {{"effective", "#2ca02c"}, {"ineffective", "#999999"},
                                      {"implementation_failed", "#d62728"}, {"tried", "#ff7f0e"},
                                      {"harmful", "#9467bd"}};

std::string roofline_title(const json& roof) {
  const std::string roofs = roof.value("peaks_source", "").empty() ? "" : " (" + roof.value("peaks_source", "") + " roofs)";
  return roof.at("definition") == "spec" ? "Roofline: the spec's work per call over each median" + roofs
                                         : "Roofline: Nsight Compute's FLOP/s and DRAM bytes" + roofs;
}

std::string roofline_svg(const json& roof) {
  RooflineChart chart{.bytes_per_second = roof.at("bytes_per_second"),
                      .compute_ceilings = {{roof.at("ceiling"), roof.at("flop_per_second")}},
                      .title = roofline_title(roof)};
  for (const json& p : roof.at("points")) {
    // The branches are many: grey dots without labels; the baseline and champions are named.
    const std::string label = p.at("kind") == "branch" ? "" : p.at("label").get<std::string>();
    chart.points.push_back({label, p.at("intensity"), p.at("flop_per_second")});
  }
  return render_roofline_svg(chart);
}

// Why every point stands where it does, under the chart.
std::string roofline_caption(const json& roof) {
  if (roof.at("definition") == "spec") {
    return "<p>Every variant at the same arithmetic intensity, the spec's FLOP over its bytes per call (its "
           "<code>[work]</code> formulas), and at the spec's FLOP over its median time: the baseline and each "
           "iteration's champion named, the other branches that passed in grey.</p>\n";
  }
  return "<p>The spec declares no work formulas: the baseline and each champion as Nsight Compute measured them "
         "(FLOP/s and FLOP per DRAM byte); the branches, which were timed but not profiled, are not shown.</p>\n";
}

// The page's header: what the run was measured on, when, and by which kopt.
std::string header_html(const json& s) {
  const json env = s.value("environment", json::object());
  auto field = [&](const char* key) { return env.value(key, json()).is_null() ? std::string("not recorded") : env[key].dump(); };
  auto text = [&](const char* key) {
    return env.value(key, json()).is_string() ? escape_xml(env[key].get<std::string>()) : std::string("not recorded");
  };
  std::string device = text("device");
  if (env.value("arch", json()).is_string()) device += fmt::format(" ({}, {} SMs)", text("arch"), field("sm_count"));
  const std::string finished = s.at("finished").get<bool>() ? "finished: " + s.at("stop_reason").get<std::string>() : "in progress";
  return fmt::format(
      "<table class=\"header\">\n<tr><th>Device</th><td>{}</td></tr>\n<tr><th>CUDA</th><td>driver {}, runtime {}; {}</td></tr>\n"
      "<tr><th>Run</th><td>started {} ({})</td></tr>\n<tr><th>kopt</th><td>{} measured the run; {} drew this page</td></tr>\n"
      "<tr><th>Kernel</th><td><code>{}</code></td></tr>\n</table>\n",
      device, text("cuda_driver"), text("cuda_runtime"), text("nvcc"), escape_xml(s.at("created").get<std::string>()),
      escape_xml(finished), text("kopt_version"), KOPT_VERSION, escape_xml(s.at("kernel").get<std::string>()));
}

// summary.md without its title (the page has it), its headings under the page's.
std::string summary_html(const json& summary) {
  std::string markdown = format_run_summary(summary);
  if (markdown.starts_with("# ")) markdown.erase(0, markdown.find('\n') + 1);
  return markdown_to_html(markdown, 1);
}

}  // namespace

std::string render_html_report(const json& summary, const std::vector<SampleDistribution>& distributions) {
  const json charts = report_charts(summary);
  std::string body = header_html(summary);
  // A dry run's figures look like measured ones: the page says so before the first, and above each.
  const bool simulated = summary.value("simulated", false);
  if (simulated) {
    body += "<p class=\"simulated\"><strong>Simulated:</strong> every time, profile and verdict on this page came "
            "from a lab model (<code>--simulate</code>), not from a GPU; none of its numbers is a measurement.</p>\n";
  }
  body += "<p>" + inline_markdown_to_html(audit_headline(summary)) + "</p>\n";
  if (const std::string standing = standing_text(summary); !standing.empty()) {
    body += "<p>" + inline_markdown_to_html(standing.substr(0, standing.find('\n'))) + "</p>\n";
  }
  auto section = [&](const std::string& id, const std::string& title, const std::string& svg) {
    body += fmt::format("<section id=\"{}\"><h2>{}{}</h2>\n{}</section>\n", id, escape_xml(title),
                        simulated ? " (simulated)" : "", svg);
  };
  if (charts.contains("roofline")) {
    section("roofline", "Roofline", roofline_svg(charts["roofline"]) + roofline_caption(charts["roofline"]));
  }
  BarChart speedup = bar_chart("Speedup over the baseline after each iteration", "×", charts["speedup"], 1);
  speedup.axis_title = "speedup over the baseline (×): its median ÷ the best median after the iteration";
  section("speedup", "Speedup over the baseline", render_bar_chart_svg(speedup));
  BarChart gaps = bar_chart("Gap to each ceiling going into each iteration", "%", charts["gaps"], 0, kGapColours);
  gaps.axis_title = "gap to the ceiling (% of it not reached), from the profile going into the iteration";
  section("gaps", "Bottleneck gaps", render_bar_chart_svg(gaps));
  BarChart methods = bar_chart("Time without each method / time with it (95 % interval)", "×", charts["methods"], 1, kMethodColours);
  methods.log_scale = true;
  methods.axis_title = "time without ÷ time with (×, log scale): right of 1× the method saves time";
  section("methods", "Method contributions", render_bar_chart_svg(methods));
  BarChart medians = bar_chart("Median time per solve call (95 % interval)", " µs", charts["medians_us"], 0);
  medians.axis_title = "median time per solve call (µs)";
  section("medians", "Baseline and best", render_bar_chart_svg(medians));
  section("samples", "Distribution of the samples", render_distribution_svg(distributions));
  body += "<section id=\"summary\"><h2>Summary</h2>\n" + summary_html(summary) + "</section>\n";
  return html_page("kopt report: " + fs::path(summary.at("kernel").get<std::string>()).filename().string(), body);
}

std::string html_page(const std::string& title, const std::string& body) {
  return fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{0}</title>\n"
      "<style>body{{font-family:sans-serif;max-width:1000px;margin:2em auto;padding:0 1em}}"
      "svg.chart,section svg{{max-width:100%;height:auto;display:block}}"
      // A wide table scrolls; a cell breaks between words only, never inside a number or a name.
      "table{{border-collapse:collapse;margin:1em 0;display:block;overflow-x:auto}}"
      "td,th{{border:1px solid #ccc;padding:.3em .6em;text-align:left;overflow-wrap:normal}}"
      "p.simulated{{background:#fff3cd;padding:.5em 1em}}"
      "pre{{white-space:pre-wrap;overflow-wrap:anywhere;background:#f6f6f6;padding:1em}}"
      "table.header th{{background:#f6f6f6}}code{{background:#f3f3f3;padding:0 .2em}}</style></head>\n"
      "<body><h1>{0}</h1>\n{1}</body></html>\n",
      escape_xml(title), body);
}

json write_html_report(const loop::RunFolder& run, const std::filesystem::path& out_dir) {
  const json summary = run_summary(run);
  create_folders(out_dir);
  write_file_atomic(out_dir / "report.html", render_html_report(summary, kept_sample_distributions(run, summary)));
  return summary;
}

}  // namespace kopt::report
