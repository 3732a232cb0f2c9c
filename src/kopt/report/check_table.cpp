#include "kopt/report/check_table.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace kopt::report {
namespace {

std::string resources_summary(const verify::CheckReport& report) {
  if (!report.build) return "";
  std::string text = report.build->cache_hit ? "cached" : fmt::format("compiled in {:.1f} s", report.build->compile_seconds);
  for (const build::FunctionResources& f : report.build->resources.functions) {
    text += fmt::format("; {}: {} regs, {} B smem", f.name, f.registers, f.shared_bytes);
    if (f.spill_store_bytes + f.spill_load_bytes > 0) {
      text += fmt::format(", SPILLS {} B stored / {} B loaded", f.spill_store_bytes, f.spill_load_bytes);
    }
  }
  return text;
}

std::string run_row(const verify::RunRecord& run, std::size_t case_width) {
  double max_abs = 0, max_rel = 0;  // max_rel: the largest relative L2 error of the outputs
  for (const verify::OutputError& e : run.outputs) {
    max_abs = std::max(max_abs, e.max_abs_error);
    max_rel = std::max(max_rel, e.rel_l2_error);
  }
  std::string errors = run.outputs.empty() ? fmt::format("{:>11}  {:>11}", "-", "-")
                                           : fmt::format("{:>11.3g}  {:>11.3g}", max_abs, max_rel);
  std::string note = run.passed() ? (run.bitwise_reproducible ? "" : "not bitwise reproducible")
                                  : run.findings.front().message;
  return fmt::format("  {:<{}}  {:>4}  {:<4}  {}  {}\n", run.case_name, case_width, run.seed,
                     run.passed() ? "ok" : "FAIL", errors, note);
}

}  // namespace

std::string format_check_report(const verify::CheckReport& report) {
  std::string out = fmt::format("kopt check {}\n", report.kernel.string());
  for (const std::string& guess : report.guesses) out += fmt::format("  guessed: {}\n", guess);
  if (report.device.contains("name")) {
    out += fmt::format("  device     {} ({}, {} SMs); building for {}\n", report.device["name"].get<std::string>(),
                       report.device["arch"].get<std::string>(), report.device["sm_count"].get<int>(), report.arch);
  }
  if (report.build) out += fmt::format("  build      {}\n", resources_summary(report));
  out += fmt::format("  reference  {}\n", report.reference);
  if (report.from_cache) out += "  runs       reused: this exact check passed before (same library, cases, seeds, reference, GPU)\n";
  if (!report.runs.empty()) {
    std::size_t case_width = 4;
    for (const verify::RunRecord& run : report.runs) case_width = std::max(case_width, run.case_name.size());
    out += fmt::format("  {:<{}}  {:>4}  {:<4}  {:>11}  {:>11}  {}\n", "case", case_width, "seed", "", "max abs err",
                       "rel L2 err", "notes");
    for (const verify::RunRecord& run : report.runs) out += run_row(run, case_width);
  }
  out += check_warning_lines(report);
  out += sanitizer_lines(report);
  if (report.passed()) {
    out += fmt::format("PASS: {} runs on {} cases\n", report.runs.size(), report.cases.size());
  } else {
    out += fmt::format("FAIL: {}\n", report.cause());
  }
  return out;
}

std::string sanitizer_lines(const verify::CheckReport& report) {
  std::string out;
  for (const verify::SanitizerRun& run : report.sanitizers.value_or(std::vector<verify::SanitizerRun>{})) {
    out += fmt::format("  {:<10} case {}: {}{}\n", run.tool, run.case_name, run.status,
                       run.status == "failed" ? ": " + run.detail : run.errors > 0 ? fmt::format(" ({} errors)", run.errors) : "");
    for (const verify::SanitizerFinding& f : run.findings) {
      out += fmt::format("    {}: {}{}{}\n", run.tool, f.what, f.kernel.empty() ? "" : " at " + f.kernel,
                         f.location.empty() ? "" : " in " + f.location);
    }
  }
  return out;
}

std::string check_warning_lines(const verify::CheckReport& report) {
  std::string out;
  // Unconfined, the verdict still holds (every check is run afresh), but the user should
  // know the kernel could write anywhere they can.
  if (!report.sandbox.empty() && !report.writes_confined)
    out += fmt::format("WARN: kernel's writes not confined: {}\n", report.sandbox);
  for (const spec::SourceFinding& finding : report.source_findings) {
    out += fmt::format("{}: {}\n", report.strict ? "FAIL" : "WARN", spec::describe(finding));
  }
  for (const std::string& warning : report.warnings) out += fmt::format("WARN: {}\n", warning);
  return out;
}

}  // namespace kopt::report
