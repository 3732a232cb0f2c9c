#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "kopt/core/error.hpp"
#include "kopt/measure/statistics.hpp"
#include "kopt/spec/data_file.hpp"
#include "kopt/system/system_trace.hpp"

namespace kopt::system {
using json = nlohmann::json;

namespace {

struct Interval {
  double start = 0, end = 0;
};

// The union of the intervals, as disjoint intervals in time order.
std::vector<Interval> merged(std::vector<Interval> intervals) {
  std::sort(intervals.begin(), intervals.end(), [](const Interval& a, const Interval& b) { return a.start < b.start; });
  std::vector<Interval> out;
  for (const Interval& i : intervals) {
    if (!out.empty() && i.start <= out.back().end) out.back().end = std::max(out.back().end, i.end);
    else out.push_back(i);
  }
  return out;
}

double length(const std::vector<Interval>& disjoint) {
  double total = 0;
  for (const Interval& i : disjoint) total += i.end - i.start;
  return total;
}

std::vector<Interval> intervals_of(const SystemTrace& trace, std::initializer_list<ActivityKind> kinds) {
  std::vector<Interval> out;
  for (const Activity& a : trace.activities) {
    if (std::find(kinds.begin(), kinds.end(), a.kind) != kinds.end()) out.push_back({a.start_s, a.end_s});
  }
  return out;
}

// Calls, total and mean time per name of one kind, the longest total first.
json by_name(const SystemTrace& trace, ActivityKind kind, double kind_total) {
  struct Row {
    int calls = 0;
    double total = 0;
    std::int64_t bytes = 0;
  };
  std::map<std::string, Row> rows;
  for (const Activity& a : trace.activities) {
    if (a.kind != kind) continue;
    Row& r = rows[a.name];
    ++r.calls;
    r.total += a.end_s - a.start_s;
    r.bytes += a.bytes;
  }
  json out = json::array();
  for (const auto& [name, r] : rows) {
    json row = {{"name", name}, {"calls", r.calls}, {"total_s", r.total}, {"mean_s", r.total / r.calls},
                {"share", kind_total > 0 ? r.total / kind_total : 0.0}};
    if (kind == ActivityKind::copy) row["bytes"] = r.bytes;
    out.push_back(row);
  }
  std::sort(out.begin(), out.end(), [](const json& a, const json& b) { return a["total_s"] > b["total_s"]; });
  return out;
}

double summed(const SystemTrace& trace, ActivityKind kind) {
  double total = 0;
  for (const Activity& a : trace.activities) total += a.kind == kind ? a.end_s - a.start_s : 0;
  return total;
}

// The GPU's idle intervals between its first and its last operation.
json gaps_of(const std::vector<Interval>& busy) {
  std::vector<double> gaps;
  for (std::size_t i = 1; i < busy.size(); ++i) gaps.push_back(busy[i].start - busy[i - 1].end);
  if (gaps.empty()) return {{"count", 0}, {"median_s", 0.0}, {"max_s", 0.0}};
  return {{"count", gaps.size()}, {"median_s", measure::median(gaps)}, {"max_s", *std::max_element(gaps.begin(), gaps.end())}};
}

std::string bound_of(double kernel_share, double copy_share, double gap_share, const EvidenceRules& rules) {
  if (gap_share > rules.gap_share && gap_share >= copy_share) return "gaps";
  if (copy_share > rules.copy_share) return "copies";
  return kernel_share > 0 ? "kernels" : "nothing_traced";
}

}  // namespace

namespace {

constexpr std::string_view kRulesFile = "data/system_evidence.toml";

const toml::table& section(const toml::table& root, std::string_view name, const std::vector<std::string_view>& keys) {
  return spec::data_section(root, kRulesFile, name, keys);
}

double share_value(const toml::table& table, std::string_view key) {
  const std::optional<double> value = table[key].value<double>();
  if (!value || !(*value > 0 && *value < 1)) throw environment_error("{}: {} must be a share between 0 and 1", kRulesFile, key);
  return *value;
}

}  // namespace

EvidenceRules load_evidence_rules() {
  const toml::table root = spec::load_data_file(std::string(kRulesFile));
  const std::vector<std::string_view> top = {"schema_version", "kernels", "workload"};
  if (auto unknown = spec::first_unknown_key(root, top)) {
    throw environment_error("{}: {}", kRulesFile, spec::unknown_key_text(*unknown, top));
  }
  const toml::table& kernels = section(root, "kernels", {"min_share", "max_candidates"});
  const toml::table& workload = section(root, "workload", {"gap_share", "copy_share"});
  const std::optional<std::int64_t> max_candidates = kernels["max_candidates"].value<std::int64_t>();
  if (!max_candidates || *max_candidates < 1) throw environment_error("{}: max_candidates must be a positive integer", kRulesFile);
  return {.min_kernel_share = share_value(kernels, "min_share"),
          .max_candidates = static_cast<int>(*max_candidates),
          .gap_share = share_value(workload, "gap_share"),
          .copy_share = share_value(workload, "copy_share")};
}

json system_evidence(const SystemTrace& trace, const EvidenceRules& rules) {
  const std::vector<Interval> kernels = merged(intervals_of(trace, {ActivityKind::kernel}));
  const std::vector<Interval> gpu = merged(intervals_of(trace, {ActivityKind::kernel, ActivityKind::copy}));
  const std::vector<Interval> everything =
      merged(intervals_of(trace, {ActivityKind::kernel, ActivityKind::copy, ActivityKind::host_api}));
  const double span = gpu.empty() ? 0 : gpu.back().end - gpu.front().start;
  const double kernel_s = length(kernels), busy_s = length(gpu);
  const double copy_s = busy_s - kernel_s, gap_s = span - busy_s;  // copies under a kernel count as kernel time
  auto share = [span](double s) { return span > 0 ? s / span : 0.0; };
  const double kernel_sum = summed(trace, ActivityKind::kernel);
  json kernel_rows = by_name(trace, ActivityKind::kernel, kernel_sum);
  json candidates = json::array();
  for (const json& k : kernel_rows) {
    if (k["share"].get<double>() < rules.min_kernel_share || static_cast<int>(candidates.size()) >= rules.max_candidates) break;
    candidates.push_back({{"name", k["name"]}, {"share", k["share"]}, {"total_s", k["total_s"]}, {"calls", k["calls"]}});
  }
  return {{"schema", "kopt.system_evidence/1"},
          {"format", trace.format},
          {"window_s", everything.empty() ? 0.0 : everything.back().end - everything.front().start},
          {"gpu_span_s", span},
          {"kernel_s", kernel_s},
          {"copy_s", copy_s},
          {"gap_s", gap_s},
          {"host_api_s", length(merged(intervals_of(trace, {ActivityKind::host_api})))},
          {"shares", {{"kernels", share(kernel_s)}, {"copies", share(copy_s)}, {"gaps", share(gap_s)}}},
          {"bound", bound_of(share(kernel_s), share(copy_s), share(gap_s), rules)},
          {"gaps", gaps_of(gpu)},
          {"kernels", kernel_rows},
          {"copies", by_name(trace, ActivityKind::copy, summed(trace, ActivityKind::copy))},
          {"candidates", candidates},
          {"min_kernel_share", rules.min_kernel_share}};
}

namespace {

std::string us(double seconds) { return fmt::format("{:.1f} µs", seconds * 1e6); }

}  // namespace

std::string format_system_evidence(const json& e) {
  const json& s = e["shares"];
  std::string text = fmt::format(
      "GPU span {} ({} trace): kernels {} ({:.0f} %), copies {} ({:.0f} %), idle gaps {} ({:.0f} %); host in the CUDA "
      "API {}.\n",
      us(e["gpu_span_s"]), e["format"].get<std::string>(), us(e["kernel_s"]), 100 * s["kernels"].get<double>(),
      us(e["copy_s"]), 100 * s["copies"].get<double>(), us(e["gap_s"]), 100 * s["gaps"].get<double>(), us(e["host_api_s"]));
  const json& g = e["gaps"];
  text += fmt::format("Gaps: {} between GPU operations, median {}, longest {}. Bound by: {}.\n", g["count"].get<int>(),
                      us(g["median_s"]), us(g["max_s"]), e["bound"].get<std::string>());
  text += "\nKernels (share of GPU kernel time):\n";
  for (const json& k : e["kernels"]) {
    text += fmt::format("  {:5.1f} %  {:>6} calls  {:>12}  {}\n", 100 * k["share"].get<double>(), k["calls"].get<int>(),
                        us(k["total_s"]), k["name"].get<std::string>());
  }
  if (!e["copies"].empty()) text += "\nCopies:\n";
  for (const json& c : e["copies"]) {
    text += fmt::format("  {:>6} × {:<8} {:>12}  {} bytes\n", c["calls"].get<int>(), c["name"].get<std::string>(),
                        us(c["total_s"]), c["bytes"].get<std::int64_t>());
  }
  text += fmt::format("\nWorth handing to the loop (at least {:.0f} % of kernel time):", 100 * e["min_kernel_share"].get<double>());
  if (e["candidates"].empty()) text += " none.\n";
  else text += "\n";
  for (const json& c : e["candidates"]) {
    text += fmt::format("  {} ({:.1f} %)\n", c["name"].get<std::string>(), 100 * c["share"].get<double>());
  }
  return text;
}

}  // namespace kopt::system
