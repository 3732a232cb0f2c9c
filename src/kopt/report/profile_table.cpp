#include "kopt/report/profile_table.hpp"

#include <fmt/format.h>

#include "kopt/report/check_table.hpp"
#include "kopt/report/roofline_svg.hpp"

namespace kopt::report {
namespace {

std::string percent_of(const profile::LaunchConcepts& launch, const std::string& concept_name) {
  auto it = launch.concepts.find(concept_name);
  if (it == launch.concepts.end() || !it->second.value) return "-";
  return fmt::format("{:.0f}%", 100 * *it->second.value);
}

std::string dims(const profile::Dim3& d) { return fmt::format("({},{},{})", d.x, d.y, d.z); }

// Kernel names carry their whole parameter list; the table keeps the part before "(".
std::string short_name(const std::string& name, std::size_t width) {
  std::string base = name.substr(0, name.find('('));
  return base.size() <= width ? base : base.substr(0, width - 1) + "~";
}

std::string launch_rows(const profile::ProfileReport& report) {
  std::string out = fmt::format("  {:<32} {:>13} {:>11} {:>10} {:>6} {:>5} {:>5} {:>5}\n", "kernel", "grid", "block",
                                "time", "share", "SM", "mem", "DRAM");
  for (const profile::ProfiledLaunch& l : report.launches) {
    out += fmt::format("  {:<32} {:>13} {:>11} {:>10} {:>5.0f}% {:>5} {:>5} {:>5}\n",
                       short_name(l.launch.kernel_name, 32), dims(l.launch.grid), dims(l.launch.block),
                       format_seconds(l.concepts.duration_s), 100 * l.share, percent_of(l.concepts, "sm_throughput"),
                       percent_of(l.concepts, "memory_throughput"), percent_of(l.concepts, "dram_throughput"));
  }
  if (report.launches.size() > 1 && report.whole) {
    out += fmt::format("  {:<32} {:>13} {:>11} {:>10}\n", "whole call", "", "", format_seconds(report.whole->duration_s));
  }
  return out;
}

std::string top_rows(const profile::ProfiledLaunch& dominant) {
  std::string out = fmt::format("  furthest from good ({}):\n", short_name(dominant.launch.kernel_name, 60));
  for (const std::string axis : {"compute", "memory", "latency"}) {
    auto it = dominant.top.by_axis.find(axis);
    std::string row;
    if (it != dominant.top.by_axis.end()) {
      for (std::size_t i = 0; i < std::min<std::size_t>(3, it->second.size()); ++i) {
        const profile::TopMetric& m = it->second[i];
        row += fmt::format("{}{} {:.0f}% ({} is bad)", row.empty() ? "" : ", ", m.name, 100 * m.value, m.bad);
      }
    }
    out += fmt::format("    {:<8} {}\n", axis, row.empty() ? "-" : row);
  }
  return out;
}

// A rate above its ceiling is information, not rounding: a measured ceiling that a kernel
// beats understates what that kernel's mix of work can get, and a datasheet one means the work
// or the counters are off. The utilization printed above is clamped to 100 %.
std::string above_ceiling_lines(const roofline::RooflineAnalysis& a) {
  using roofline::PeaksSource;
  std::string out;
  if (const auto ratio = roofline::above_ceiling(a.inputs.achieved_bytes_per_second, a.inputs.peak_bytes_per_second)) {
    const bool measured = a.sources.bytes_peak == PeaksSource::measured;
    out += fmt::format("  above      DRAM traffic at {:.1f}% of the {} ceiling: {}\n", 100 * *ratio,
                       roofline::to_string(a.sources.bytes_peak),
                       measured ? "that ceiling (a device-to-device copy) understates this kernel's mix of reads "
                                  "and writes"
                                : "check the spec's [work] bytes and the counters");
  }
  if (const auto ratio = roofline::above_ceiling(a.inputs.achieved_flop_per_second, a.inputs.peak_flop_per_second)) {
    const bool measured = a.sources.flop_peak == PeaksSource::measured;
    out += fmt::format("  above      {} work at {:.1f}% of the {} ceiling: {}\n", a.compute_ceiling, 100 * *ratio,
                       roofline::to_string(a.sources.flop_peak),
                       measured ? "that ceiling understates this kernel's instruction mix"
                                : "check the spec's [work] flops and the compute ceiling it is held against");
  }
  return out;
}

}  // namespace

std::string format_seconds(double seconds) {
  if (seconds >= 1) return fmt::format("{:.3g} s", seconds);
  if (seconds >= 1e-3) return fmt::format("{:.3g} ms", seconds * 1e3);
  if (seconds >= 1e-6) return fmt::format("{:.3g} µs", seconds * 1e6);
  return fmt::format("{:.3g} ns", seconds * 1e9);
}

std::string format_profile_report(const profile::ProfileReport& report) {
  if (!report.check.passed()) return format_check_report(report.check);
  std::string out = fmt::format("kopt profile {}  case {}  ncu {} (--set {}, --clock-control {})\n",
                                report.check.kernel.string(), report.case_name,
                                report.ncu_version.empty() ? "-" : report.ncu_version, report.section_set,
                                report.clock_control);
  if (report.failure) return out + fmt::format("  FAILED: {}\n", *report.failure);
  if (!report.evidence()) return out + fmt::format("  degraded: {}\n", report.reason);
  out += launch_rows(report);
  if (const profile::ProfiledLaunch* dominant = report.dominant()) out += top_rows(*dominant);
  return out;
}

std::string format_roofline(const roofline::RooflineAnalysis& a) {
  const roofline::RooflinePoint& p = a.point;
  std::string out;
  if (a.degraded) out += fmt::format("  degraded: {}\n", a.reason.value_or(""));
  out += fmt::format("  achieved   {} ({}), {} DRAM\n", format_rate(a.inputs.achieved_flop_per_second, "FLOP/s"),
                     roofline::to_string(a.sources.achieved), format_rate(a.inputs.achieved_bytes_per_second, "B/s"));
  out += fmt::format("  ceilings   {} {} ({}), {} DRAM ({}){}\n", format_rate(a.inputs.peak_flop_per_second, "FLOP/s"),
                     a.compute_ceiling, roofline::to_string(a.sources.flop_peak),
                     format_rate(a.inputs.peak_bytes_per_second, "B/s"), roofline::to_string(a.sources.bytes_peak),
                     a.precision.empty() ? "" : "; precision " + a.precision);
  out += fmt::format("  intensity  {} FLOP/byte; ridge {:.3g} FLOP/byte\n",
                     p.arithmetic_intensity ? fmt::format("{:.3g}", *p.arithmetic_intensity) : std::string("-"),
                     p.ridge_point);
  out += fmt::format("  gaps       compute {:.2f}  memory {:.2f}  latency {:.2f}\n", p.gaps.compute, p.gaps.memory,
                     p.gaps.latency);
  out += fmt::format("  bound      {}{}{}; compute at {:.0f}%, memory at {:.0f}% of its nearest ceiling\n",
                     roofline::to_string(p.bound), p.high_throughput ? " (high throughput)" : "",
                     p.near_peak ? ", near peak" : "", 100 * p.compute_utilization, 100 * p.memory_utilization);
  // Each utilization is the larger of two different figures: say both, by name.
  out += fmt::format("  readings   compute: FLOP rate {:.0f}% of its ceiling, SM throughput {:.0f}%; memory: DRAM bytes "
                     "{:.0f}% of its ceiling, memory throughput {:.0f}% (Nsight Compute's throughputs)\n",
                     100 * p.flop_ratio, 100 * p.sm_throughput, 100 * p.dram_bytes_ratio, 100 * p.memory_throughput);
  out += above_ceiling_lines(a);
  out += fmt::format("  budget     compute {}  memory {}  latency {}\n", a.budget.of(roofline::Axis::compute),
                     a.budget.of(roofline::Axis::memory), a.budget.of(roofline::Axis::latency));
  return out;
}

}  // namespace kopt::report
