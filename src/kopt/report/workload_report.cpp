#include "kopt/report/workload_report.hpp"

#include <fmt/format.h>

#include "kopt/core/error.hpp"
#include "kopt/core/file_queries.hpp"
#include "kopt/core/files.hpp"
#include "kopt/report/bar_chart_svg.hpp"
#include "kopt/report/html_report.hpp"
#include "kopt/report/markdown_html.hpp"
#include "kopt/workload/workload_documents.hpp"

namespace kopt::report {
namespace {

using nlohmann::json;

constexpr const char* kAuditColour = "#2e8b57";
constexpr const char* kRejectedColour = "#b0b0b0";

// A paired verdict as a gain bar: 1 / ratio, its interval [1 / high, 1 / low].
BarRow gain_row(const std::string& label, const json& verdict, const std::string& colour, const std::string& group) {
  const double ratio = verdict.at("median_ratio"), low = verdict.at("low"), high = verdict.at("high");
  return {fmt::format("{} ({})", label, verdict.at("verdict").get<std::string>()), 1 / ratio, high > 0 ? 1 / high : 0,
          low > 0 ? 1 / low : 0, colour, group};
}

std::string gains_chart(const json& doc) {
  BarChart chart{.title = fmt::format("Gain on {} (original / candidate per paired round, median and 95 % interval)",
                                      doc.at("primary").at("metric").get<std::string>()),
                 .unit = "×",
                 .reference = 1,
                 .legend = {{kDefaultBarColour, "comparison"}, {kAuditColour, "final audit"}},
                 .axis_title = "gain (×): above 1 the candidate is better",
                 .log_scale = true};
  for (const json& c : doc.value("candidates", json::array())) {
    if (c.contains("primary")) chart.rows.push_back(gain_row(c.at("name"), c.at("primary"), kDefaultBarColour, "comparisons"));
  }
  if (doc.contains("audit") && doc.at("audit").contains("primary")) {
    chart.rows.push_back(gain_row(doc.at("audit").at("champion"), doc.at("audit").at("primary"), kAuditColour, "final audit"));
  }
  return chart.rows.empty() ? "<p>No candidate was compared: nothing to chart.</p>" : render_bar_chart_svg(chart);
}

std::string constraints_chart(const json& doc) {
  BarChart chart{.title = "Constraints: candidate / original per paired round (median and 95 % interval)",
                 .unit = "×",
                 .reference = 1,
                 .axis_title = "ratio (×): above 1 is worse; each label says its limit",
                 .log_scale = true};
  for (const json& c : doc.value("candidates", json::array())) {
    for (const json& k : c.value("constraints", json::array())) {
      const json& r = k.at("ratio");
      chart.rows.push_back({fmt::format("{} {} ≤ {:.2f}× ({})", c.at("name").get<std::string>(),
                                        k.at("metric").get<std::string>(), 1 + k.at("max_worse").get<double>(),
                                        k.at("status").get<std::string>()),
                            r.at("median_ratio"), r.at("low"), r.at("high"),
                            k.at("status") == "kept" ? kDefaultBarColour : "#c0392b", c.at("name")});
    }
  }
  return chart.rows.empty() ? "" : render_bar_chart_svg(chart);
}

std::string rejected_list(const json& doc) {
  std::string items;
  for (const json& c : doc.value("candidates", json::array())) {
    if (c.value("status", "") == "compared") continue;
    items += fmt::format("<li><span style=\"color:{}\">■</span> {}: {}</li>", kRejectedColour,
                         inline_markdown_to_html(c.at("name").get<std::string>()),
                         inline_markdown_to_html(c.value("reason", c.value("status", ""))));
  }
  return items.empty() ? "" : "<p>Not compared (none of their times count):</p><ul>" + items + "</ul>";
}

}  // namespace

std::string render_workload_report(const json& doc) {
  const std::string name = doc.at("workload");
  std::string body = fmt::format("<p><strong>{}</strong></p>\n", inline_markdown_to_html(doc.at("claim").get<std::string>()));
  body += gains_chart(doc) + "\n" + constraints_chart(doc) + "\n" + rejected_list(doc) + "\n";
  // summary.md without its first line, which is the page's title and claim already
  const std::string summary = workload::format_workload_summary(doc);
  body += markdown_to_html(summary.substr(summary.find('\n') + 1), 1);
  return html_page("Workload " + name, body);
}

bool is_workload_session(const std::filesystem::path& folder) { return is_file(folder / "workload.json"); }

json write_workload_report(const std::filesystem::path& session, const std::filesystem::path& out_dir) {
  const json doc = json::parse(read_file(session / "workload.json"), nullptr, false);
  if (!doc.is_object() || doc.value("schema", "") != "kopt.workload/1") {
    throw input_error("{}: not a workload session's result (kopt.workload/1)", (session / "workload.json").string());
  }
  write_file_atomic(out_dir / "report.html", render_workload_report(doc));
  return doc;
}

}  // namespace kopt::report
