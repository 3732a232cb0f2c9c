#include "kopt/report/run_summary.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <limits>

#include "kopt/core/file_queries.hpp"
#include "kopt/core/files.hpp"
#include "kopt/report/iteration_text.hpp"
#include "kopt/spec/problem_spec.hpp"
#include "kopt/spec/problem_work.hpp"

namespace kopt::report {
namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

json file_or_null(const fs::path& file) { return path_exists(file) ? loop::read_json(file) : json(nullptr); }

std::string device_name(const json& env) {
  if (!env.is_object() || !env.contains("device") || !env["device"].is_object()) return "";
  return env["device"].value("name", "");
}

// 13000 -> "13.0": CUDA's encoding of a driver or runtime version (1000 × major + 10 × minor).
json cuda_version_text(const json& encoded) {
  if (!encoded.is_number_integer()) return nullptr;
  const int v = encoded.get<int>();
  return fmt::format("{}.{}", v / 1000, (v % 1000) / 10);
}

// Where and with what the run was measured, for the report's header: env.json's device and
// CUDA versions, and the kopt that measured the baseline (its kopt.bench report). Null
// fields where the run did not record them.
json run_environment(const loop::RunFolder& run, const json& env) {
  const json device = env.is_object() && env.contains("device") ? env["device"] : json::object();
  const json bench = file_or_null(run.baseline() / "baseline_bench.json");
  return {{"device", device_name(env).empty() ? json(nullptr) : json(device_name(env))},
          {"arch", device.value("arch", json())},
          {"sm_count", device.value("sm_count", json())},
          {"cuda_driver", cuda_version_text(device.value("driver_api_version", json()))},
          {"cuda_runtime", cuda_version_text(device.value("runtime_version", json()))},
          {"nvcc", env.is_object() ? env.value("nvcc", json()) : json()},
          {"kopt_version", bench.is_object() ? bench.value("kopt_version", json()) : json()}};
}

// {"name", "uuid"} of a GPU record (state.json's gpus, a measurement's gpu); null when unnamed.
json gpu_named(const json& gpu) {
  if (!gpu.is_object() || (gpu.value("uuid", "").empty() && gpu.value("name", "").empty())) return nullptr;
  return {{"name", gpu.value("name", "")}, {"uuid", gpu.value("uuid", "")}};
}

// The GPU iteration `i` measured on: the last of the run's GPUs it had moved to by then
// (state.json's gpus, each from its since_iteration); env.json's device for an older run.
json gpu_of_iteration(const loop::RunState& state, const json& env, int i) {
  json found;
  for (const json& g : state.gpus) {
    if (g.value("since_iteration", 0) <= i) found = gpu_named(g);
  }
  if (found.is_null() && env.is_object()) found = gpu_named(env.value("device", json()));
  return found;
}

// The champion's own median, from its branch's outcome: the source the frontier's medians
// come from, so that the roofline places every variant by the same measurement.
json champion_median(const json& iteration) {
  for (const json& b : iteration.at("branches")) {
    if (iteration.value("champion", json()) == b.at("name") && b.at("outcome").value("passed", false)) {
      return b.at("outcome").value("median_s", json());
    }
  }
  return nullptr;
}

// The 95 % interval of the median `median_s`, from the measurement that gave it: the
// baseline's, a champion's, an ablation's (a best with a harmful method switched off) or a
// re-measurement on another GPU. Null when none of them holds that median.
json ci_of_median(const loop::RunFolder& run, const loop::RunState& state, double median_s) {
  std::vector<fs::path> files = {run.baseline() / "bench.json"};
  for (const loop::IterationState& it : state.iterations) {
    files.push_back(run.champion(it.index) / "bench.json");
    files.push_back(run.iteration(it.index) / "ablation.json");
    for (const json& gpu : state.gpus) {
      files.push_back(run.iteration(it.index) / ("rebaseline_" + gpu.value("uuid", "") + ".json"));
    }
  }
  for (const fs::path& file : files) {
    if (const std::optional<json> o = outcome_with_median(file, median_s)) return o->value("median_ci_s", json());
  }
  return nullptr;
}

// FLOP and bytes per call of the timed case, from the spec's [work] formulas: where the
// branches stand on the roofline. Null when the spec is gone or has no formulas.
json spec_work(const loop::RunState& state) {
  const std::optional<spec::CaseWork> work = loop::timed_case_work(state);
  if (!work) return nullptr;
  return {{"flops", work->flops}, {"bytes", work->bytes}};
}

// The final audit's verdicts (audit.json without its samples), when finalize wrote one for
// the run's present best; null otherwise.
json audit_summary(const loop::RunFolder& run, const loop::RunState& state) {
  const json audit = file_or_null(run.root() / "audit.json");
  if (audit.is_null() || audit.value("champion", json()) != json(state.best)) return nullptr;
  json out = {{"verdict", audit.at("verdict")}, {"timed_case", audit.at("timed_case")}, {"cases", json::array()},
              {"gpu", gpu_named(audit.value("gpu", json()))}};
  for (const json& c : audit.at("cases")) {
    json row = c;
    row.erase("measurement");
    if (c.at("case") == audit.at("timed_case")) out["timed"] = row;
    out["cases"].push_back(row);
  }
  return out;
}

// One closed iteration's rows of the summary's lists: its row, its methods (the ledger: what
// its branches claimed, nothing else), its losing branches (frontier), what was rejected, and
// the switches its champion had on without a claim (reported, never a method's result).
void add_iteration(const loop::RunFolder& run, const loop::IterationState& it, const json& gpu, json& summary) {
  const json doc = file_or_null(run.iteration(it.index) / "iteration.json");
  if (doc.is_null()) return;
  int passed = 0;
  for (const json& b : doc.at("branches")) {
    const json& o = b.at("outcome");
    if (o.contains("first_look_s") && !o.at("passed").get<bool>()) continue;  // correct, only not promising
    if (!o.at("passed").get<bool>()) {
      summary["rejected"].push_back({{"iteration", it.index}, {"what", b.at("name")}, {"why", o.at("failure")}});
      continue;
    }
    ++passed;
    if (doc.value("champion", json()) != b.at("name")) {
      summary["frontier"].push_back({{"iteration", it.index}, {"branch", b.at("name")}, {"defines", b.at("defines")},
                                     {"label", b.value("label", "")}, {"median_s", o.at("median_s")},
                                     {"versus_best", o.value("versus_first", json())}, {"gpu", gpu}});
    }
  }
  for (const json& m : doc.value("methods", json::array())) {
    json row = m;
    row["iteration"] = it.index;
    row["gpu"] = gpu;
    if (doc.contains("best_after")) {  // a harmful method was switched off in the next best
      const json& off = doc["best_after"].at("switched_off");
      row["switched_off"] = std::find(off.begin(), off.end(), m.at("id")) != off.end();
    }
    summary["ledger"].push_back(row);
    if (m.value("class", "") == "implementation_failed" || m.value("class", "") == "tried") {
      summary["rejected"].push_back({{"iteration", it.index}, {"what", m.at("id")},
                                     {"why", m.value("class", "") == "tried" ? m.value("reason", "") : "its SASS signature is absent"}});
    }
  }
  for (const json& u : doc.value("unclaimed", json::array())) {
    json row = u;
    row["iteration"] = it.index;
    summary["unclaimed"].push_back(row);
  }
  summary["iterations"].push_back({{"index", it.index}, {"verdict", doc.at("verdict")}, {"champion", doc.at("champion")},
                                   {"evidence_in", doc.at("evidence_in")}, {"methods_claimed", doc.at("methods_claimed")},
                                   {"branches", doc.at("branches").size()}, {"branches_passed", passed},
                                   {"best_before_s", doc.at("best_before").at("median_s")},
                                   {"best_after_s", it.best_median_s},
                                   {"champion_median_s", champion_median(doc)},
                                   {"speedup_vs_best", doc.value("speedup_vs_best", json())},
                                   {"speedup_vs_best_ci", doc.value("speedup_vs_best_ci", json())},
                                   {"champion_roofline", file_or_null(run.champion(it.index) / "profile" / "roofline.json")},
                                   {"elapsed_s", doc.value("elapsed_s", 0.0)},
                                   {"time", doc.value("time", json())}, {"gpu", gpu}});
}

}  // namespace

std::optional<json> outcome_with_median(const fs::path& file, double median_s) {
  const json doc = file_or_null(file);
  if (doc.is_null()) return std::nullopt;
  const json outcomes = doc.contains("outcomes") ? doc["outcomes"] : json::array({doc});
  for (const json& o : outcomes) {
    if (o.value("median_s", -1.0) == median_s) return o;
  }
  return std::nullopt;
}

json run_summary(const loop::RunFolder& run) {
  const loop::RunState state = run.load();
  const json env = file_or_null(run.root() / "env.json");
  json summary = {{"schema", "kopt.summary/1"},
                  {"run", run.root().string()},
                  {"kernel", state.kernel.string()},
                  {"device", device_name(env)},
                  {"simulated", env.is_object() && env.value("simulated", false)},
                  {"environment", run_environment(run, env)},
                  {"created", state.created},
                  {"finished", state.finished},
                  {"stop_reason", state.stop_reason},
                  {"baseline_median_s", state.baseline_median_s},
                  {"best_median_s", state.best_median_s},
                  {"best", state.best},
                  {"best_iteration", state.best_iteration},
                  {"speedup_vs_baseline", state.baseline_median_s / state.best_median_s}};
  if (state.reference_median_s) {
    summary["reference_median_s"] = *state.reference_median_s;
    summary["speedup_vs_reference"] = *state.reference_median_s / state.best_median_s;
  }
  summary["baseline_median_ci_s"] = ci_of_median(run, state, state.baseline_median_s);
  summary["best_median_ci_s"] = ci_of_median(run, state, state.best_median_s);
  summary["gpus"] = state.gpus;
  // The GPU the baseline's and the best's medians are of: the run's last (a move re-measures both).
  summary["medians_gpu"] = gpu_of_iteration(state, env, std::numeric_limits<int>::max());
  summary["work"] = spec_work(state);
  summary["audit"] = audit_summary(run, state);
  const json baseline_roofline = file_or_null(run.baseline() / "profile" / "roofline.json");
  summary["baseline_roofline"] = baseline_roofline;
  for (const char* list : {"iterations", "ledger", "frontier", "rejected", "unclaimed"}) summary[list] = json::array();
  for (const loop::IterationState& it : state.iterations) add_iteration(run, it, gpu_of_iteration(state, env, it.index), summary);
  std::sort(summary["frontier"].begin(), summary["frontier"].end(),
            [](const json& a, const json& b) { return a.at("median_s").get<double>() < b.at("median_s").get<double>(); });
  return summary;
}

json write_run_summary(const loop::RunFolder& run) {
  json summary = run_summary(run);
  write_file_atomic(run.root() / "summary.md", format_run_summary(summary));
  loop::write_json(run.root() / "summary.json", summary);
  return summary;
}

}  // namespace kopt::report
