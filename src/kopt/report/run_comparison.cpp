#include "kopt/report/run_comparison.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <set>

#include "kopt/core/error.hpp"
#include "kopt/core/files.hpp"
#include "kopt/report/bar_chart_svg.hpp"
#include "kopt/report/html_report.hpp"
#include "kopt/report/roofline_svg.hpp"
#include "kopt/report/run_summary.hpp"

namespace kopt::report {
namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

constexpr std::array kRunColours = {kDefaultBarColour, "#e07b39"};  // A blue as in the report, B orange

// One side of the comparison: the run's summary, cut to what is compared.
json compared_run(const std::string& name, const loop::RunFolder& run) {
  const json s = run_summary(run);
  if (s.at("iterations").empty()) {
    throw input_error("{}: no iteration has closed yet, so there is nothing to compare (see kopt status {})",
                      run.root().string(), run.root().string());
  }
  const double baseline = s.at("baseline_median_s");
  json iterations = json::array();
  for (const json& it : s.at("iterations")) {
    const double after = it.at("best_after_s");
    // A close killed between iteration.json and state.json leaves no time after it yet.
    iterations.push_back({{"index", it.at("index")}, {"verdict", it.at("verdict")}, {"best_after_s", after},
                          {"speedup_vs_baseline", after > 0 ? json(baseline / after) : json(nullptr)}});
  }
  return {{"name", name},
          {"run", fs::absolute(run.root()).lexically_normal().string()},  // compare.md may be read from elsewhere
          {"kernel", s.at("kernel")},
          {"device", s.at("device")},
          {"finished", s.at("finished")},
          {"stop_reason", s.at("stop_reason")},
          {"baseline_median_s", baseline},
          {"baseline_median_ci_s", s.at("baseline_median_ci_s")},
          {"best_median_s", s.at("best_median_s")},
          {"best_median_ci_s", s.at("best_median_ci_s")},
          {"speedup_vs_baseline", s.at("speedup_vs_baseline")},
          {"reference_median_s", s.value("reference_median_s", json())},
          {"speedup_vs_reference", s.value("speedup_vs_reference", json())},
          {"best", s.at("best")},
          {"best_iteration", s.at("best_iteration")},
          {"iterations", iterations}};
}

std::string kernel_file(const json& side) { return fs::path(side.at("kernel").get<std::string>()).filename().string(); }

std::string device_of(const json& side) {
  const std::string device = side.at("device");
  return device.empty() ? "an unnamed device" : device;
}

std::string time_with_ci(const json& median, const json& ci) {
  if (!ci.is_array()) return format_us(median);
  return fmt::format("{} [{:.2f}, {:.2f}]", format_us(median), ci.at(0).get<double>() * 1e6, ci.at(1).get<double>() * 1e6);
}

// A table shared by compare.md and compare.html: a first column naming the row, then A and B.
struct Row {
  std::string what, a, b;
};

std::string speedup_text(const json& speedup) {
  return speedup.is_null() ? "–" : fmt::format("{:.2f}×", speedup.get<double>());
}

std::vector<Row> fact_rows(const json& c) {
  std::vector<Row> rows;
  auto add = [&](std::string what, auto cell) { rows.push_back({std::move(what), cell(c["runs"][0]), cell(c["runs"][1])}); };
  add("run", [](const json& r) { return r.at("run").get<std::string>(); });
  add("kernel", kernel_file);
  add("device", device_of);
  add("baseline (95 % CI)", [](const json& r) { return time_with_ci(r.at("baseline_median_s"), r.at("baseline_median_ci_s")); });
  add("final (95 % CI)", [](const json& r) { return time_with_ci(r.at("best_median_s"), r.at("best_median_ci_s")); });
  add("speedup vs baseline", [](const json& r) { return speedup_text(r.at("speedup_vs_baseline")); });
  add("speedup vs reference", [](const json& r) { return speedup_text(r.at("speedup_vs_reference")); });
  add("iterations closed", [](const json& r) { return std::to_string(r.at("iterations").size()); });
  add("best from", [](const json& r) {
    const int i = r.at("best_iteration");
    return i == 0 ? std::string("the baseline") : fmt::format("iteration {}", i);
  });
  add("state", [](const json& r) {
    return r.at("finished").get<bool>() ? "finished (" + r.at("stop_reason").get<std::string>() + ")"
                                        : std::string("in progress");
  });
  return rows;
}

// The champions' -D values, one row per define either of them sets.
std::vector<Row> configuration_rows(const json& c) {
  const json& a = c["runs"][0]["best"];
  const json& b = c["runs"][1]["best"];
  std::vector<Row> rows = {{"kernel", a.at("kernel").get<std::string>(), b.at("kernel").get<std::string>()}};
  std::set<std::string> names;
  for (const json* best : {&a, &b}) {
    for (const auto& [name, value] : best->at("defines").items()) names.insert(name);
  }
  auto value_of = [](const json& best, const std::string& name) {
    return best.at("defines").contains(name) ? best["defines"][name].get<std::string>() : std::string("(default)");
  };
  for (const std::string& name : names) rows.push_back({name, value_of(a, name), value_of(b, name)});
  return rows;
}

std::string speedup_cell(const json& side, int index) {
  for (const json& it : side.at("iterations")) {
    if (it.at("index") != index) continue;
    return fmt::format("{} ({})", speedup_text(it.at("speedup_vs_baseline")), it.at("verdict").get<std::string>());
  }
  return "–";
}

int last_iteration(const json& c) {
  int last = 0;
  for (const json& side : c.at("runs")) {
    for (const json& it : side.at("iterations")) last = std::max(last, it.at("index").get<int>());
  }
  return last;
}

std::vector<Row> iteration_rows(const json& c) {
  std::vector<Row> rows;
  for (int i = 1; i <= last_iteration(c); ++i) {
    rows.push_back({std::to_string(i), speedup_cell(c["runs"][0], i), speedup_cell(c["runs"][1], i)});
  }
  return rows;
}

std::string markdown_table(const std::string& first, const std::vector<Row>& rows) {
  std::string md = fmt::format("| {} | A | B |\n| --- | --- | --- |\n", first);
  for (const Row& r : rows) md += fmt::format("| {} | {} | {} |\n", r.what, r.a, r.b);
  return md;
}

std::string html_table(const std::string& first, const std::vector<Row>& rows) {
  std::string html = fmt::format("<table><tr><th>{}</th><th>A</th><th>B</th></tr>\n", escape_xml(first));
  for (const Row& r : rows) {
    html += fmt::format("<tr><th>{}</th><td>{}</td><td>{}</td></tr>\n", escape_xml(r.what), escape_xml(r.a), escape_xml(r.b));
  }
  return html + "</table>\n";
}

std::string ratio_sentence(const json& c) {
  return fmt::format("B's final time is {:.3f}× A's (the ratio of their medians). The two were measured in separate "
                     "runs, not interleaved, so this is no verdict: for one, time the two best kernels together with "
                     "`kopt compare`.",
                     c.at("final_time_ratio_b_over_a").get<double>());
}

// `code` spans of a sentence written for Markdown, as HTML.
std::string markdown_code_to_html(std::string text) {
  bool open = false;
  for (auto at = text.find('`'); at != std::string::npos; at = text.find('`', at)) {
    text.replace(at, 1, open ? "</code>" : "<code>");
    open = !open;
  }
  return text;
}

std::vector<std::pair<std::string, std::string>> legend(const json& c) {
  std::vector<std::pair<std::string, std::string>> entries;
  for (std::size_t k = 0; k < 2; ++k) {
    const json& side = c["runs"][k];
    std::string text = fmt::format("{}: {} on {}", side.at("name").get<std::string>(), kernel_file(side), device_of(side));
    if (text.size() > 56) text = text.substr(0, 55) + "…";
    entries.emplace_back(kRunColours[k], text);
  }
  return entries;
}

// The speedup over its own baseline after each iteration, the two runs' bars side by side.
BarChart speedup_chart(const json& c) {
  BarChart chart{.title = "Speedup over each run's baseline after each iteration", .unit = "×", .reference = 1,
                 .legend = legend(c), .axis_title = "speedup over the run's own baseline (×)"};
  for (int i = 1; i <= last_iteration(c); ++i) {
    for (std::size_t k = 0; k < 2; ++k) {
      const json& side = c["runs"][k];
      for (const json& it : side.at("iterations")) {
        if (it.at("index") != i || it.at("speedup_vs_baseline").is_null()) continue;
        chart.rows.push_back({.label = fmt::format("{} ({})", side.at("name").get<std::string>(), it.at("verdict").get<std::string>()),
                              .value = it.at("speedup_vs_baseline"), .colour = kRunColours[k],
                              .group = fmt::format("iteration {}", i)});
      }
    }
  }
  return chart;
}

BarRow time_row(const std::string& label, const json& median, const json& ci, const char* colour) {
  BarRow row{.label = label, .value = median.get<double>() * 1e6, .colour = colour};
  if (ci.is_array()) {
    row.low = ci.at(0).get<double>() * 1e6;
    row.high = ci.at(1).get<double>() * 1e6;
  }
  return row;
}

BarChart times_chart(const json& c) {
  BarChart chart{.title = "Median time per solve call, µs (95 % interval)", .unit = " µs", .legend = legend(c),
                 .axis_title = "median time per solve call (µs)"};
  for (std::size_t k = 0; k < 2; ++k) {
    const json& side = c["runs"][k];
    const std::string name = side.at("name");
    chart.rows.push_back(time_row(name + " final", side.at("best_median_s"), side.at("best_median_ci_s"), kRunColours[k]));
    chart.rows.push_back(time_row(name + " baseline", side.at("baseline_median_s"), side.at("baseline_median_ci_s"),
                                  kRunColours[k]));
  }
  return chart;
}

}  // namespace

json compare_runs(const loop::RunFolder& a, const loop::RunFolder& b) {
  json comparison = {{"schema", std::string(kCompareSchema)}, {"runs", {compared_run("A", a), compared_run("B", b)}}};
  comparison["final_time_ratio_b_over_a"] =
      comparison["runs"][1]["best_median_s"].get<double>() / comparison["runs"][0]["best_median_s"].get<double>();
  return comparison;
}

std::string format_comparison_headline(const json& c) {
  std::string text;
  for (const json& side : c.at("runs")) {
    text += fmt::format("{}: {} on {}: {} → {}, {:.2f}× in {} iteration(s)\n", side.at("name").get<std::string>(),
                        kernel_file(side), device_of(side), format_us(side.at("baseline_median_s")),
                        format_us(side.at("best_median_s")), side.at("speedup_vs_baseline").get<double>(),
                        side.at("iterations").size());
  }
  return text + fmt::format("B's final time is {:.3f}× A's (separate runs, not interleaved: no verdict)\n",
                            c.at("final_time_ratio_b_over_a").get<double>());
}

std::string format_run_comparison(const json& c) {
  std::string md = fmt::format("# kopt compare: {} (A) and {} (B)\n\n", kernel_file(c["runs"][0]), kernel_file(c["runs"][1]));
  md += markdown_table("", fact_rows(c)) + "\n" + ratio_sentence(c) + "\n";
  md += "\n## The champions' configurations\n\n" + markdown_table("", configuration_rows(c));
  md += "\n## Speedup over each run's baseline after each iteration\n\n" + markdown_table("iter", iteration_rows(c));
  return md;
}

std::string render_comparison_html(const json& c) {
  std::string body = "<section id=\"facts\">" + html_table("", fact_rows(c)) +
                     fmt::format("<p>{}</p></section>\n", markdown_code_to_html(escape_xml(ratio_sentence(c))));
  auto section = [&](const std::string& id, const std::string& title, const std::string& content) {
    body += fmt::format("<section id=\"{}\"><h2>{}</h2>\n{}</section>\n", id, escape_xml(title), content);
  };
  section("speedup", "Speedup after each iteration", render_bar_chart_svg(speedup_chart(c)));
  section("final", "Baseline and final times", render_bar_chart_svg(times_chart(c)));
  section("configurations", "The champions' configurations", html_table("", configuration_rows(c)));
  section("iterations", "Speedup over each run's baseline after each iteration", html_table("iter", iteration_rows(c)));
  return html_page(fmt::format("kopt compare: {} (A) and {} (B)", kernel_file(c["runs"][0]), kernel_file(c["runs"][1])),
                   body);
}

json write_run_comparison(const loop::RunFolder& a, const loop::RunFolder& b, const fs::path& out_dir) {
  const json comparison = compare_runs(a, b);
  loop::write_json(out_dir / "compare.json", comparison);
  write_file_atomic(out_dir / "compare.md", format_run_comparison(comparison));
  write_file_atomic(out_dir / "compare.html", render_comparison_html(comparison));
  return comparison;
}

}  // namespace kopt::report
