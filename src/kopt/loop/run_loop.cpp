#include "kopt/loop/run_loop.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <set>

#include "kopt/catalog/evidence.hpp"
#include "kopt/catalog/method_catalog.hpp"
#include "kopt/catalog/plan_step.hpp"
#include "kopt/catalog/sass_signature.hpp"
#include "kopt/core/clock.hpp"
#include "kopt/core/error.hpp"
#include "kopt/core/file_queries.hpp"
#include "kopt/core/files.hpp"
#include "kopt/core/hash.hpp"
#include "kopt/loop/close_steps.hpp"
#include "kopt/loop/experiment_record.hpp"
#include "kopt/loop/frozen_inputs.hpp"
#include "kopt/report/iteration_text.hpp"
#include "kopt/spec/kernel_signature.hpp"
#include "kopt/spec/problem_spec.hpp"
#include "kopt/spec/tool_arguments.hpp"
#include "kopt/spec/python_kernel.hpp"

namespace kopt::loop {
namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

constexpr const char* kEvidenceFiles[] = {"profile.json", "ncu_top.json", "roofline.json"};

// Copies the evidence files that exist in `from` into `to`.
void copy_evidence(const fs::path& from, const fs::path& to) {
  for (const char* name : kEvidenceFiles) {
    if (path_exists(from / name)) write_file_atomic(to / name, read_file(from / name));
  }
}

// The same assembly as `kopt plan` (catalog/plan_step.hpp): an architecture the profile
// does not name is an error here too, not a silent sm_90. None without evidence.
bool has_evidence(const fs::path& dir) { return path_exists(dir / "profile.json") && path_exists(dir / "roofline.json"); }

std::optional<catalog::PlanInputs> plan_inputs(const fs::path& dir, const json& history) {
  if (!has_evidence(dir)) return std::nullopt;
  return catalog::read_plan_inputs(
      {.profile = dir / "profile.json", .roofline = dir / "roofline.json", .history_document = history}, {});
}

// history.json and plan.json of iteration `i`, from the evidence already in its folder.
void write_plan(const RunFolder& run, int i, const json& history) {
  const fs::path dir = run.iteration(i);
  write_json(dir / "history.json", history);
  write_json(dir / "plan.json", catalog::plan_document(catalog::load_method_catalog(), plan_inputs(dir, history)));
}

// Every catalog method's KOPT_USE_... switch, by id: a branch may claim any of them that the
// validator accepts, so the driver never has to derive a macro from an id (it cannot).
json method_switches() {
  json switches = json::object();
  for (const catalog::Method& m : catalog::load_method_catalog().methods) switches[m.id] = m.macro;
  return switches;
}

}  // namespace

json method_history(const RunFolder& run, const RunState& state) {
  json methods = json::array();
  for (const IterationState& it : state.iterations) {
    if (it.status != "closed") continue;
    const fs::path file = run.iteration(it.index) / "iteration.json";
    if (!path_exists(file)) continue;
    const json iteration = read_json(file);
    require_schema(iteration, kIterationSchema, file);
    for (const json& m : iteration.value("methods", json::array())) {
      std::string status = m.value("class", "tried");
      if (status == "not_ablated") status = "tried";
      methods.push_back({{"id", m.at("id")}, {"status", status}, {"iteration", it.index}});
    }
  }
  return {{"methods", methods}, {catalog::kRetriesField, state.settings.retries}};
}

namespace {

// "init: 24.1 s (measure 13.0 s, environment 0.1 s, profile 10.4 s, sass 0.6 s)".
std::string describe_init_time(const RunState& state) {
  std::vector<std::string> parts;
  for (const char* stage : {"measure", "environment", "profile", "sass"}) {
    if (auto it = state.init_stages_s.find(stage); it != state.init_stages_s.end()) {
      parts.push_back(fmt::format("{} {:.1f} s", stage, it->second));
    }
  }
  return fmt::format("init: {:.1f} s ({})", state.init_wall_s, fmt::join(parts, ", "));
}

}  // namespace

RunState init_run(Lab& lab, const InitRequest& request, const LoopContext& hooks) {
  const RunFolder run(request.run_dir);
  if (run.exists()) {
    throw input_error("{} already holds a run: see kopt status {}", run.root().string(), run.root().string());
  }
  RunLock lock(run);
  const auto start = hooks.clock->now();
  const spec::ProblemSpec located = spec::locate_problem(request.kernel, request.spec);
  RunState state{.kernel = fs::absolute(located.kernel), .dims = request.dims, .settings = request.settings};
  if (located.spec_file) state.spec = fs::absolute(*located.spec_file);
  state.created = utc_timestamp();

  const std::string kernel_file = kernel_file_like(located.kernel);  // a Triton kernel's copies stay .py
  write_file_atomic(run.baseline() / kernel_file, read_file(located.kernel));
  freeze_inputs(run, located);
  state.baseline = {.label = "baseline", .kernel = "baseline/" + kernel_file, .defines = request.defines};
  write_json(run.baseline() / "variant.json", state.baseline);

  auto mark = hooks.clock->now();
  const auto lap = [&](const char* stage) {  // where init's time went (issue 59)
    const auto now = hooks.clock->now();
    state.init_stages_s[stage] = std::chrono::duration<double>(now - mark).count();
    mark = now;
  };
  say(hooks, "measuring the baseline");
  const json bench = once(run.baseline() / "bench.json", kMeasurementSchema, hooks, "baseline_bench", [&] {
    // No ncu witness here: the first finals witness the baseline beside every finalist.
    const Measurement m = lab.measure({.variants = {run.resolved(state.baseline)}, .time_reference = true});
    // Every sample, as the screen and the finals keep theirs: the report draws their spread.
    if (!m.detail.is_null()) write_json(run.baseline() / "baseline_bench.json", m.detail);
    return measurement_json({state.baseline}, m);
  });
  lap("measure");
  write_json(run.root() / "env.json", lab.environment());
  lap("environment");
  say(hooks, "profiling the baseline");
  once(run.baseline() / "profile" / "evidence.json", hooks, "baseline_profile", [&] {
    const Evidence e = lab.profile(run.resolved(state.baseline), run.baseline() / "profile");
    return json{{"ok", e.ok}, {"reason", e.reason}};
  });
  lap("profile");
  once(run.baseline() / "sass.json", hooks, "baseline_sass", [&] {
    std::vector<std::string> ids;
    for (const spec::MethodSwitch& s : switches_on(located.kernel, request.defines)) ids.push_back(s.method_id);
    return json(lab.sass(run.resolved(state.baseline), ids));
  });
  lap("sass");

  const VariantOutcome baseline = outcomes_of(bench).at(0);
  state.baseline_median_s = baseline.median;
  if (bench.contains("reference_median_s")) state.reference_median_s = bench["reference_median_s"].get<double>();
  state.best = state.baseline;
  state.best_median_s = baseline.median;
  if (bench.contains("gpu") && bench["gpu"].is_object()) state.gpus.push_back(gpu_record(bench["gpu"], 0, baseline.median));
  state.iterations = {{.index = 1}};
  copy_evidence(run.baseline() / "profile", run.iteration(1));
  write_plan(run, 1, method_history(run, state));
  state.init_wall_s = std::chrono::duration<double>(hooks.clock->now() - start).count();
  run.save(state);
  say(hooks, describe_init_time(state));
  step_done(hooks, "state");
  return state;
}

namespace {

// "time to the first verified improvement: 41.2 s (init 12.0 s, closes 29.2 s)", or how long
// kopt has run without one.
std::string describe_time_to_first_improvement(const RunState& state) {
  double closes = 0;
  for (const IterationState& it : state.iterations) closes += it.wall_s;
  if (const std::optional<double> first = time_to_first_improvement(state)) {
    return fmt::format("time to the first verified improvement: {:.1f} s (init {:.1f} s, closes {:.1f} s)", *first,
                       state.init_wall_s, *first - state.init_wall_s);
  }
  return fmt::format("no verified improvement yet after {:.1f} s (init {:.1f} s, closes {:.1f} s)",
                     state.init_wall_s + closes, state.init_wall_s, closes);
}

// The iteration's champion becomes the best (with its harmful methods switched off where the
// ablation found any); its profile, where it has one, is the next iteration's evidence.
void adopt_champion(const RunFolder& run, int i, const json& verdict, RunState& state, fs::path& next_evidence,
                    bool& near_peak) {
  state.best = read_json(run.champion(i) / "variant.json").get<Variant>();
  state.best_iteration = i;
  state.best_median_s = verdict.at("champion_median_s");
  if (verdict.contains("best_after")) {  // the champion with its harmful methods switched off
    state.best = verdict["best_after"].at("variant").get<Variant>();
    state.best_median_s = verdict["best_after"].at("median_s");
  }
  if (has_evidence(run.champion(i) / "profile")) {
    next_evidence = run.champion(i) / "profile";
    near_peak = read_json(next_evidence / "roofline.json").value("near_peak", false);
  }
}

}  // namespace

json close_iteration(Lab& lab, const RunFolder& run, std::optional<int> iteration, const LoopContext& hooks) {
  RunLock lock(run);
  require_frozen_inputs(run);
  RunState state = run.load();
  // Run again after it finished, `close` has nothing new to close: it answers as it did.
  const bool untouched = !path_exists(run.iteration(state.current) / "methods.json") &&
                         branch_names(run, state.current).empty();
  if (!iteration && state.current > 1 && untouched) iteration = state.current - 1;
  const int i = iteration.value_or(state.current);
  if (i < 1 || i > state.current) throw input_error("{}: there is no iteration {} (the current one is {})",
                                                    run.root().string(), i, state.current);
  const fs::path dir = run.iteration(i);
  if (state.iterations.at(static_cast<std::size_t>(i - 1)).status == "closed") {
    const json closed = read_json(dir / "iteration.json");
    require_schema(closed, kIterationSchema, dir / "iteration.json");
    return closed;
  }
  const auto start = hooks.clock->now();
  const ProcessTimes processes_before = lab.process_times();

  const std::optional<catalog::PlanInputs> inputs = plan_inputs(dir, method_history(run, state));
  const std::vector<Branch> branches = read_branches(run, i, state, inputs);
  const std::vector<std::string> methods = claimed_methods(branches);
  Variant best = state.best;
  best.label = "best";

  say(hooks, fmt::format("{}: measuring {} branch(es) against the best", iter_name(i), branches.size()));
  const json screen = once(dir / "screen.json", kMeasurementSchema, hooks, "screen",
                           [&] { return screen_branches(lab, run, i, state, best, branches, hooks); });
  follow_gpu(lab, run, i, state, screen.value("gpu", json()), hooks);

  const std::vector<VariantOutcome> screened = outcomes_of(screen);
  const std::vector<std::size_t> finalists = pick_finalists(screened, state.settings.finalists);
  say(hooks, fmt::format("{}: re-measuring {} finalist(s) interleaved with the best", iter_name(i), finalists.size()));
  const json finals = once(dir / "finals.json", kMeasurementSchema, hooks, "finals",
                           [&] { return measure_finals(lab, run, i, best, branches, finalists, *hooks.clock); });
  follow_gpu(lab, run, i, state, finals.value("gpu", json()), hooks);
  const ChampionSteps champion = champion_steps(lab, run, i, branches, finalists, finals, inputs, hooks);
  const std::optional<std::string>& champion_name = champion.name;
  const json& ablation = champion.ablation;

  const double elapsed = std::chrono::duration<double>(hooks.clock->now() - start).count();
  const json time = time_spent(elapsed, lab.process_times() - processes_before, branches.size());
  const json verdict = once(dir / "iteration.json", kIterationSchema, hooks, "conclude", [&] {
    return conclude(run, i, state, branches, methods, screen, finals, champion_name, ablation, time);
  });

  say(hooks, fmt::format("{}: {}", iter_name(i), verdict.at("verdict").get<std::string>()));
  if (verdict.at("time").contains("stages") && report::stages_ran_processes(verdict["time"]["stages"])) {
    say(hooks, fmt::format("{}: cost: {}", iter_name(i), report::format_stage_costs(verdict["time"]["stages"])));
  }
  IterationState& record = state.iterations.at(static_cast<std::size_t>(i - 1));
  record.status = "closed";
  record.verdict = verdict.at("verdict");
  record.champion = champion_name.value_or("");
  bool near_peak = false;
  fs::path next_evidence = dir;
  if (champion_name) adopt_champion(run, i, verdict, state, next_evidence, near_peak);
  record.best_median_s = state.best_median_s;
  record.wall_s = verdict.at("elapsed_s").get<double>();
  say(hooks, fmt::format("{}: {}", iter_name(i), describe_time_to_first_improvement(state)));
  if (i >= state.settings.iterations) {
    state.finished = true;
    state.stop_reason = "iterations_done";
  } else if (near_peak) {
    state.finished = true;
    state.stop_reason = "near_peak";
  } else {
    copy_evidence(next_evidence, run.iteration(i + 1));
    state.current = i + 1;
    if (state.iterations.size() < static_cast<std::size_t>(i + 1)) state.iterations.push_back({.index = i + 1});
    write_plan(run, i + 1, method_history(run, state));
  }
  run.save(state);
  step_done(hooks, "state");
  return verdict;
}

void stop_run(const RunFolder& run, const std::string& reason) {
  RunLock lock(run);
  RunState state = run.load();
  if (state.finished) return;
  state.finished = true;
  state.stop_reason = reason;
  run.save(state);
}

json next_step(const RunFolder& run, const RunState& state) {
  json next = {{"schema", "kopt.next/1"}, {"run", run.root().string()}, {"iteration", state.current},
               {"finished", state.finished}, {"baseline_median_s", state.baseline_median_s},
               {"best_median_s", state.best_median_s}};
  const std::optional<double> first = time_to_first_improvement(state);
  next["time_to_first_improvement_s"] = first ? json(*first) : json(nullptr);
  if (state.finished) {
    next["stop_reason"] = state.stop_reason;
    next["command"] = fmt::format("kopt finalize {}", run.root().string());
    return next;
  }
  const std::string it = iter_name(state.current);
  const fs::path dir = run.iteration(state.current);
  next["read"] = {it + "/profile.json", it + "/ncu_top.json", it + "/roofline.json", it + "/plan.json",
                  it + "/history.json"};
  json write = json::array();
  const std::vector<std::string> names = branch_names(run, state.current);
  // Branches that each claim their own methods need no iteration-wide methods.json.
  const bool each_claims = !names.empty() && std::ranges::all_of(names, [&](const std::string& name) {
    return path_exists(run.branches(state.current) / name / "methods.json");
  });
  if (!path_exists(dir / "methods.json") && !each_claims) write.push_back(it + "/methods.json");
  // close refuses a branch without its experiment record (experiment_record.hpp): each is listed.
  if (names.empty()) {
    const std::string kernel_file = kernel_file_like(state.kernel);
    for (int k = 1; k <= state.settings.branches; ++k) {
      write.push_back(fmt::format("{}/branches/b{}/{}", it, k, kernel_file));
      write.push_back(fmt::format("{}/branches/b{}/{}", it, k, kExperimentFile));
    }
  }
  for (const std::string& name : names) {
    if (!path_exists(run.branches(state.current) / name / kExperimentFile)) {
      write.push_back(fmt::format("{}/branches/{}/{}", it, name, kExperimentFile));
    }
  }
  next["write"] = write;
  // K is a maximum: `write` names K branch folders, and 1 to K of them may be written.
  next["branches_max"] = state.settings.branches;
  next["switches"] = method_switches();
  next["branch_kernel"] = kernel_file_like(state.kernel);
  next["best_kernel"] = state.best.kernel.string();
  next["best_defines"] = state.best.defines;
  next["phase"] = path_exists(dir / "screen.json") ? "closing" : write.empty() ? "ready_to_close" : "awaiting_branches";
  next["command"] = fmt::format("kopt close {}", run.root().string());
  return next;
}

}  // namespace kopt::loop
