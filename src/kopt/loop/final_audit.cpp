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

const json& samples_of(const json& bench, const std::string& label) {
  for (const json& v : bench.at("variants")) {
    if (v.at("label") == label) return v;
  }
  throw std::logic_error("the audit's measurement has no samples of " + label);
}

json audit_case(Lab& lab, const Variant& baseline, const Variant& champion, double min_effect) {
  const Measurement m = lab.measure({.variants = {baseline, champion}});
  if (!m.outcomes.at(1).passed) {
    return {{"verdict", "champion_failed"}, {"failure", m.outcomes.at(1).failure}};
  }
  const json& a = samples_of(m.detail, baseline.label);
  const json& b = samples_of(m.detail, champion.label);
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
          {"baseline_median_s", m.outcomes.at(0).median},
          {"champion_median_s", m.outcomes.at(1).median},
          {"measurement", m.detail}};
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

bool audits(const json& audit, const RunState& state) {
  return audit.value("baseline", json()) == json(state.baseline) && audit.value("champion", json()) == json(state.best);
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
    for (const std::string& name : names) {
      if (hooks.progress) hooks.progress(fmt::format("final audit: case {}: the champion against the baseline", name));
      json row = audit_case(*lab_for_case(name), baseline, champion, state.settings.min_effect);
      row["case"] = name;
      cases.push_back(std::move(row));
    }
    audit["verdict"] = overall_verdict(cases);
  }
  audit["cases"] = cases;
  audit = with_schema(kAuditSchema, audit);
  write_json(file, audit);
  return audit;
}

}  // namespace kopt::loop
