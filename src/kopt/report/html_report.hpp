#pragma once
// report.html of a run (`kopt report RUN`): one self-contained page — no scripts, no
// network, inline SVG charts — drawn from the same kopt.summary/1 document as summary.md,
// so the page and the Markdown cannot disagree. A header names the device, the CUDA driver
// and runtime, the run's start and the kopt versions; then the roofline with the baseline,
// every champion and every branch, all placed by one definition (the spec's work over each
// median; Nsight Compute's measurement of the baseline and champions when the spec has no
// work formulas); the speedup after each iteration; the bottleneck gaps grouped by iteration;
// each method's contribution on a log scale around 1× with its interval; the baseline's and
// the best's median with theirs; every timing sample behind those two medians
// (sample_distribution.hpp); and summary.md's tables as HTML tables (markdown_html.hpp).

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kopt/loop/run_state.hpp"
#include "kopt/report/bar_chart_svg.hpp"
#include "kopt/report/sample_distribution.hpp"

namespace kopt::report {

// The whole page for `summary` (run_summary) and the samples behind its baseline and best
// (kept_sample_distributions). Each bar and each median line carries its value (data-value),
// so that a test can hold the drawing to the numbers.
std::string render_html_report(const nlohmann::json& summary, const std::vector<SampleDistribution>& distributions);

// The charts' data from a summary (exposed for tests).
nlohmann::json report_charts(const nlohmann::json& summary);

// Writes OUT_DIR/report.html (created if missing) and returns the summary it draws. Writes
// nothing into the run: summary.md and summary.json are finalize's (a run checked in as a
// fixture must stay as it was recorded).
nlohmann::json write_html_report(const loop::RunFolder& run, const std::filesystem::path& out_dir);

// A self-contained page around `body`: the style every kopt page shares (charts scale down
// to the window, long lines wrap), no scripts, no links.
std::string html_page(const std::string& title, const std::string& body);

}  // namespace kopt::report
