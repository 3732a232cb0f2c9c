#pragma once
// report.html of a run (`kopt report RUN`): one self-contained page — no scripts, no
// network, inline SVG charts — drawn from the same kopt.summary/1 document as summary.md,
// so the page and the Markdown cannot disagree: the roofline with the baseline and every
// champion (measured by Nsight Compute) and every branch (the spec's work over its median);
// the speedup after each iteration; the bottleneck gaps going into each iteration; each
// method's contribution with its interval; the baseline's and the best's median with theirs.

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kopt/loop/run_state.hpp"

namespace kopt::report {

// A horizontal bar chart: one bar per row, an optional interval drawn as a whisker.
struct BarRow {
  std::string label;
  double value = 0;
  double low = 0, high = 0;   // the interval; both 0: none
};

struct BarChart {
  std::string title;
  std::string unit;           // appended to the value labels: "×", "%"
  std::vector<BarRow> rows;
  double reference = 0;       // a vertical line at this value (1.0 for ratios); 0: none
};

std::string render_bar_chart_svg(const BarChart& chart);

// The whole page for `summary` (run_summary). Each bar carries its value (data-value), so
// that a test can hold the drawing to the numbers.
std::string render_html_report(const nlohmann::json& summary);

// The charts' data from a summary (exposed for tests).
nlohmann::json report_charts(const nlohmann::json& summary);

// Writes RUN/report.html (and refreshes summary.md and summary.json); returns the summary.
nlohmann::json write_html_report(const loop::RunFolder& run);

}  // namespace kopt::report
