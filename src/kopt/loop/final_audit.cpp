#include "kopt/loop/final_audit.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "kopt/core/error.hpp"
#include "kopt/core/file_queries.hpp"
#include "kopt/loop/frozen_inputs.hpp"
#include "kopt/loop/run_documents.hpp"
#include "kopt/measure/statistics.hpp"
#include "kopt/measure/verdict.hpp"
#include "kopt/spec/problem_spec.hpp"

namespace kopt::loop {
namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

// measure/verdict.hpp's rule, applied to the paired interval.
std::string verdict_of(double estimate, double low, double high, double min_effect) {
  if (high < 1 && estimate < 1 - min_effect) return "faster";
  if (low > 1 && estimate > 1 + min_effect) return "slower";
  if (low >= 1 - min_effect && high <= 1 + min_effect) return "same";
  return "ambiguous";
}

// Below this many rounds a verdict is "ambiguous" whatever the numbers (as compare_samples).
constexpr std::size_t kMinRounds = measure::ComparisonSettings{}.min_samples;

}  // namespace

PairedRatio paired_ratio(const PairedSamples& samples, double min_effect) {
  PairedRatio out;
  out.rounds = std::min(samples.baseline.size(), samples.champion.size());
  std::vector<double> ratios;
  for (std::size_t i = 0; i < out.rounds; ++i) {
    if (samples.baseline[i] <= 0) continue;  // a zero time says nothing about a ratio
    ratios.push_back(samples.champion[i] / samples.baseline[i]);
    if (samples.champion[i] < samples.baseline[i]) ++out.rounds_faster;
  }
  out.rounds = ratios.size();
  if (ratios.empty()) {
    out.verdict = "ambiguous";
    return out;
  }
  const measure::ConfidenceInterval ci = measure::bootstrap_median_ci(ratios);
  measure::RatioEstimate estimate{.ratio = measure::median(ratios), .ci = ci};
  // Each round's times are quantised to the timer's tick like any median: widen as compare does.
  estimate = measure::ratio_widened_by_resolution(estimate, measure::median(samples.baseline), samples.baseline_resolution,
                                                  measure::median(samples.champion), samples.champion_resolution);
  out.median_ratio = estimate.ratio;
  out.low = estimate.ci.low;
  out.high = estimate.ci.high;
  out.verdict = out.rounds < kMinRounds ? "ambiguous" : verdict_of(out.median_ratio, out.low, out.high, min_effect);
  return out;
}

std::vector<std::string> run_case_names(const RunState& state) {
  std::vector<std::string> names;
  for (const spec::ProblemCase& c : spec::locate_problem(state.kernel, state.spec).cases) names.push_back(c.name);
  return names;
}

namespace {

// A variant's report in a measurement's detail: of the case named, or (a lab asked for one case,
// whose detail holds only it) of whichever case it holds.
const json& variant_of(const json& bench, const std::string& label, const std::optional<std::string>& case_name) {
  for (const json& v : bench.at("variants")) {
    if (v.at("label") == label && (!case_name || v.value("case", "") == *case_name)) return v;
  }
  throw std::logic_error("the audit's measurement has no samples of " + label + (case_name ? " on " + *case_name : ""));
}

// The measurement's report of one case alone: its variants and verdicts, every check.
json detail_of_case(const json& bench, const std::string& case_name) {
  json one = bench;
  for (const char* key : {"variants", "verdicts"}) {
    if (!bench.contains(key)) continue;
    one[key] = json::array();
    for (const json& entry : bench.at(key)) {
      if (entry.value("case", "") == case_name) one[key].push_back(entry);
    }
  }
  return one;
}

// One case's paired verdict from a measurement of the baseline and the champion (in that order).
// `case_name`: the case to read from a measurement of every case; none: the one it holds.
json audit_row(const Measurement& m, const Variant& baseline, const Variant& champion,
               const std::optional<std::string>& case_name, double min_effect) {
  if (!m.outcomes.at(1).passed) {
    return {{"verdict", "champion_failed"}, {"failure", m.outcomes.at(1).failure}};
  }
  const json& a = variant_of(m.detail, baseline.label, case_name);
  const json& b = variant_of(m.detail, champion.label, case_name);
  const std::vector<double> as = a.at("samples_seconds"), bs = b.at("samples_seconds");
  const PairedRatio p = paired_ratio({.baseline = as, .champion = bs,
                                      .baseline_resolution = a.value("resolution_seconds", 0.0),
                                      .champion_resolution = b.value("resolution_seconds", 0.0)},
                                     min_effect);
  return {{"verdict", p.verdict},
          {"rounds", p.rounds},
          {"rounds_faster", p.rounds_faster},
          {"time_ratio", p.median_ratio},
          {"time_ratio_ci", {p.low, p.high}},
          {"speedup", 1 / p.median_ratio},
          {"speedup_ci", {1 / p.high, 1 / p.low}},
          {"baseline_median_s", a.at("summary").at("median")},
          {"champion_median_s", b.at("summary").at("median")},
          {"measurement", case_name ? detail_of_case(m.detail, *case_name) : m.detail}};
}

// Every case's row: from one measurement of every case where the lab makes one (each variant
// checked once), else from a measurement per case, each on a lab timing that case.
// `gpu` gets the GPU that measured them (the first case's, where each case is its own measurement).
json audit_rows(const LabForCase& lab_for_case, const std::vector<std::string>& names, const std::string& timed_case,
                const Variant& baseline, const Variant& champion, double min_effect, const LoopContext& hooks,
                json& gpu) {
  json rows = json::array();
  std::unique_ptr<Lab> timed_lab = lab_for_case(timed_case);
  if (timed_lab->measures_every_case()) {
    if (hooks.progress) hooks.progress("final audit: every case: the champion against the baseline");
    const Measurement m = timed_lab->measure({.variants = {baseline, champion}, .every_case = true});
    gpu = m.gpu;
    for (const std::string& name : names) {
      json row = audit_row(m, baseline, champion, name, min_effect);
      row["case"] = name;
      rows.push_back(std::move(row));
    }
    return rows;
  }
  for (const std::string& name : names) {
    if (hooks.progress) hooks.progress(fmt::format("final audit: case {}: the champion against the baseline", name));
    std::unique_ptr<Lab> lab = name == timed_case && timed_lab ? std::move(timed_lab) : lab_for_case(name);
    const Measurement m = lab->measure({.variants = {baseline, champion}});
    if (gpu.is_null()) gpu = m.gpu;
    json row = audit_row(m, baseline, champion, std::nullopt, min_effect);
    row["case"] = name;
    rows.push_back(std::move(row));
  }
  return rows;
}

// The run's verdict over its cases: faster only when faster on every case; faster_or_same when
// each case is one of the two (a launch-bound tiny case is often the same), so that only a
// straddling interval makes the run ambiguous.
std::string overall_verdict(const json& cases) {
  if (cases.empty()) return "ambiguous";  // no case measured: nothing is shown
  bool all_faster = true, all_same = true, none_ambiguous = true;
  for (const json& c : cases) {
    const std::string v = c.at("verdict");
    if (v == "slower" || v == "champion_failed") return v;
    all_faster = all_faster && v == "faster";
    all_same = all_same && v == "same";
    none_ambiguous = none_ambiguous && (v == "faster" || v == "same");
  }
  if (all_faster) return "faster";
  if (all_same) return "same";
  return none_ambiguous ? "faster_or_same" : "ambiguous";
}

// An audit of the run's baseline and best, made on the GPU the run's medians are now of: one
// made before the run moved to another GPU is measured again there, so that the summary never
// sets an audit beside medians of another GPU (an audit without a GPU, an older file, is kept).
bool audits(const json& audit, const RunState& state) {
  if (audit.value("baseline", json()) != json(state.baseline) || audit.value("champion", json()) != json(state.best)) {
    return false;
  }
  auto uuid = [](const json& gpu) { return gpu.is_object() ? gpu.value("uuid", "") : std::string(); };
  const std::string audited_on = uuid(audit.value("gpu", json()));
  const std::string run_on = state.gpus.empty() ? "" : uuid(state.gpus.back());
  return audited_on.empty() || run_on.empty() || audited_on == run_on;
}

}  // namespace

json final_audit(const RunFolder& run, const LabForCase& lab_for_case, const LoopContext& hooks) {
  RunLock lock(run);
  const RunState state = run.load();
  require_frozen_inputs(run);
  const fs::path file = run.root() / "audit.json";
  if (path_exists(file)) {
    json kept = read_json(file);
    require_schema(kept, kAuditSchema, file);
    if (audits(kept, state)) return kept;
  }
  json audit = {{"baseline", state.baseline}, {"champion", state.best}, {"champion_iteration", state.best_iteration},
                {"min_effect", state.settings.min_effect}, {"statistic", "median of per-round time ratios, 95 % bootstrap"}};
  const std::vector<std::string> names = run_case_names(state);
  audit["timed_case"] = state.settings.timed_case.empty() ? names.front() : state.settings.timed_case;
  json cases = json::array();
  if (state.best_iteration == 0) {
    audit["verdict"] = "no_champion";
  } else {
    Variant baseline = run.resolved(state.baseline), champion = run.resolved(state.best);
    baseline.label = "baseline";
    champion.label = "champion";
    json gpu;
    cases = audit_rows(lab_for_case, names, audit["timed_case"].get<std::string>(), baseline, champion,
                       state.settings.min_effect, hooks, gpu);
    audit["gpu"] = gpu;
    audit["verdict"] = overall_verdict(cases);
  }
  audit["cases"] = cases;
  audit = with_schema(kAuditSchema, audit);
  write_json(file, audit);
  return audit;
}

}  // namespace kopt::loop
