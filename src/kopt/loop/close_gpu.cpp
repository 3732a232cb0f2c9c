#include "kopt/core/file_queries.hpp"
#include "kopt/loop/close_steps.hpp"

#include <fmt/format.h>

#include "kopt/core/error.hpp"

namespace kopt::loop {
namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

std::string uuid_of(const json& gpu) { return gpu.is_object() ? gpu.value("uuid", "") : ""; }

// The run's GPU: the last it measured on, else (a run made before kopt kept them) env.json's.
std::string run_gpu_uuid(const RunFolder& run, const RunState& state) {
  if (!state.gpus.empty()) return uuid_of(state.gpus.back());
  const fs::path env = run.root() / "env.json";
  return path_exists(env) ? uuid_of(read_json(env).value("device", json())) : "";
}

}  // namespace

json gpu_record(const json& gpu, int since_iteration, double baseline_median_s) {
  json record = gpu;
  record["since_iteration"] = since_iteration;
  record["baseline_median_s"] = baseline_median_s;
  return record;
}

void follow_gpu(Lab& lab, const RunFolder& run, int i, RunState& state, const json& measured_on,
                const LoopContext& hooks) {
  const std::string now = uuid_of(measured_on), before = run_gpu_uuid(run, state);
  if (now.empty() || before.empty() || now == before) return;
  const fs::path file = run.iteration(i) / fmt::format("rebaseline_{}.json", now);
  say(hooks, fmt::format("{}: this is another GPU ({} {}, the run's was {}): measuring the baseline and the best "
                         "here again before stating any speedup", iter_name(i), measured_on.value("name", ""), now, before));
  const bool best_is_baseline = state.best_iteration == 0 && state.best.kernel == state.baseline.kernel &&
                                state.best.defines == state.baseline.defines;
  Variant best = state.best;
  best.label = "best";
  std::vector<Variant> variants = {state.baseline};
  if (!best_is_baseline) variants.push_back(best);
  const json again = once(file, kMeasurementSchema, hooks, "rebaseline", [&] {
    std::vector<Variant> absolute;
    for (const Variant& v : variants) absolute.push_back(run.resolved(v));
    return measurement_json(variants, lab.measure({.variants = absolute, .time_reference = true}));
  });
  const std::vector<VariantOutcome> outcomes = outcomes_of(again);
  if (!best_is_baseline && !outcomes.at(1).passed) {
    throw Error(ExitCode::kernel_failed, fmt::format("the best fails on GPU {}: {}", now, outcomes.at(1).failure));
  }
  state.baseline_median_s = outcomes.at(0).median;
  state.best_median_s = best_is_baseline ? outcomes.at(0).median : outcomes.at(1).median;
  if (again.contains("reference_median_s")) state.reference_median_s = again["reference_median_s"].get<double>();
  else state.reference_median_s.reset();  // the old GPU's reference time is not this GPU's
  state.gpus.push_back(gpu_record(again.value("gpu", measured_on), i, state.baseline_median_s));
}

}  // namespace kopt::loop
