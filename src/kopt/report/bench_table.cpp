#include "kopt/report/bench_table.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "kopt/measure/bench_assessment.hpp"
#include "kopt/report/check_table.hpp"

namespace kopt::report {

std::string format_duration(double seconds) {
  if (seconds >= 1) return fmt::format("{:.3f} s", seconds);
  if (seconds >= 1e-3) return fmt::format("{:.3f} ms", seconds * 1e3);
  return fmt::format("{:.2f} us", seconds * 1e6);
}

namespace {

// Where the command's time went besides the samples: a slow verdict says which step to blame.
std::string phase_line(const measure::BenchPhaseSeconds& phases) {
  if (phases.total <= 0) return "";
  std::string line = fmt::format("time: checks {:.1f} s, timing {:.1f} s, audit of timed calls {:.1f} s", phases.checks,
                                 phases.timing, phases.audit);
  if (phases.python_reference > 0) line += fmt::format(", .py reference {:.1f} s", phases.python_reference);
  return line + fmt::format("; {:.1f} s in all\n", phases.total);
}

std::string rate(double value, double scale, const char* unit) {
  return value > 0 ? fmt::format("{:.1f} {}", value / scale, unit) : "-";
}

const measure::PairVerdict* verdict_for(const measure::BenchReport& report, const measure::VariantReport& v) {
  for (const measure::PairVerdict& p : report.verdicts) {
    if (p.case_name == v.case_name && p.label == v.label) return &p;
  }
  return nullptr;
}

std::string verdict_text(const measure::BenchReport& report, const measure::PairVerdict* p) {
  if (p == nullptr) return "baseline";
  if (measure::verdict_is_flagged(report, *p)) return "no verdict (flagged)";
  const measure::Comparison& c = p->comparison;
  return fmt::format("{} x{:.3f} [{:.3f}, {:.3f}]{}", measure::verdict_name(c.verdict), c.speedup, 1 / c.ratio.ci.high,
                     1 / c.ratio.ci.low, p->interleaved ? "" : " (not interleaved)");
}

std::string variant_row(const measure::BenchReport& report, const measure::VariantReport& v, std::size_t width) {
  const measure::Summary& s = v.summary;
  return fmt::format("  {:<{}}  {:>11}  [{:>10}, {:>10}]  {:>6.2f}%  {:>5}  {:>12}  {:>10}  {}\n", v.label, width,
                     format_duration(s.median), format_duration(s.median_ci.low), format_duration(s.median_ci.high),
                     100 * s.relative_stdev, s.count, rate(v.flops_per_second, 1e12, "TFLOP/s"),
                     rate(v.bytes_per_second, 1e9, "GB/s"), verdict_text(report, verdict_for(report, v)));
}

std::string stop_line(const measure::VariantReport& v, std::size_t width) {
  // No SM clock for a .py reference: the runner has no clock probe.
  std::string clock =
      v.samples.sm_clock_mhz.empty() ? "not measured" : fmt::format("{:.0f} MHz", v.median_sm_clock_mhz);
  return fmt::format("  {:<{}}  stopped: {}; {} throttled samples discarded; SM clock {}\n", "", width,
                     v.samples.stop_reason, v.samples.throttled_discarded, clock);
}

std::string case_header(const std::string& case_name, std::size_t width) {
  return fmt::format("case {}\n  {:<{}}  {:>11}  {:^24}  {:>7}  {:>5}  {:>12}  {:>10}  {}\n", case_name, "kernel", width,
                     "median", "95% CI of median", "rel sd", "n", "FLOP/s", "bandwidth", "vs first");
}

std::string case_rows(const measure::BenchReport& report, const std::string& case_name, std::size_t width) {
  std::string out = case_header(case_name, width);
  for (const measure::VariantReport& v : report.variants) {
    if (v.case_name != case_name) continue;
    out += variant_row(report, v, width);
    if (!v.samples.timing_note.empty()) out += fmt::format("  {:<{}}  {}\n", "", width, v.samples.timing_note);
    if (v.samples.throttled_discarded > 0 || v.samples.stop_reason != "median_precise") out += stop_line(v, width);
  }
  for (const measure::UntimedVariant& u : report.untimed) {
    if (u.case_name == case_name) out += fmt::format("  {:<{}}  {}\n", u.label, width, u.reason);
  }
  return out;
}

// Case names in the order they first appear.
std::vector<std::string> case_names(const measure::BenchReport& report) {
  std::vector<std::string> names;
  auto add = [&](const std::string& name) {
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  };
  for (const measure::VariantReport& v : report.variants) add(v.case_name);
  for (const measure::UntimedVariant& u : report.untimed) add(u.case_name);
  return names;
}

std::string_view cache_state_of(const measure::BenchReport& report) {
  if (report.mode == "graph") return "CUDA graph replays, L2 not flushed";
  if (report.mode != "cold") return "L2 not flushed";
  return report.settings.l2_flush == measure::L2Flush::read ? "L2 flushed by a read before each sample"
                                                            : "L2 flushed by a write before each sample";
}

}  // namespace

std::string format_bench_report(const measure::BenchReport& report) {
  std::string out;
  for (const verify::CheckReport& check : report.checks) {
    if (!check.passed()) return out + format_check_report(check);
  }
  out += fmt::format("kopt bench: {} timing ({}), {}; {} check(s) passed\n", report.mode, cache_state_of(report),
                     report.device.value("name", std::string("?")), report.checks.size());
  std::size_t width = 7;
  for (const measure::VariantReport& v : report.variants) width = std::max(width, v.label.size());
  for (const measure::UntimedVariant& u : report.untimed) width = std::max(width, u.label.size());
  for (const std::string& name : case_names(report)) out += case_rows(report, name, width);
  out += phase_line(report.phase_seconds);
  for (const verify::CheckReport& check : report.checks) out += check_warning_lines(check);
  for (const std::string& note : report.notes) out += "note: " + note + "\n";
  for (const std::string& warning : report.warnings) out += "WARN: " + warning + "\n";
  for (const std::string& flag : report.flags) out += "FLAG: " + flag + "\n";
  out += report.passed() ? "OK\n" : "FAIL: see the flags above\n";
  return out;
}

}  // namespace kopt::report
