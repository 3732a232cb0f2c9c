#include "kopt/loop/run_loop.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "kopt/catalog/evidence.hpp"
#include "kopt/catalog/method_catalog.hpp"
#include "kopt/catalog/plan_step.hpp"
#include "kopt/catalog/sass_signature.hpp"
#include "kopt/core/clock.hpp"
#include "kopt/core/error.hpp"
#include "kopt/core/files.hpp"
#include "kopt/core/hash.hpp"
#include "kopt/spec/kernel_signature.hpp"
#include "kopt/spec/problem_spec.hpp"
#include "kopt/spec/tool_arguments.hpp"

namespace kopt::loop {
namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

constexpr const char* kEvidenceFiles[] = {"profile.json", "ncu_top.json", "roofline.json"};

void step_done(const LoopContext& hooks, std::string_view step) {
  if (hooks.after_step) hooks.after_step(step);
}

void say(const LoopContext& hooks, const std::string& line) {
  if (hooks.progress) hooks.progress(line);
}

std::string iter_name(int i) { return "iter" + std::to_string(i); }

// Copies the evidence files that exist in `from` into `to`.
void copy_evidence(const fs::path& from, const fs::path& to) {
  for (const char* name : kEvidenceFiles) {
    if (fs::exists(from / name)) write_file_atomic(to / name, read_file(from / name));
  }
}

// The catalog methods a kernel declares switches for and that are on under `defines`.
std::vector<spec::MethodSwitch> switches_on(const fs::path& kernel, const Defines& defines) {
  std::vector<spec::MethodSwitch> on;
  for (const spec::MethodSwitch& s : spec::parse_source_annotations(read_file(kernel), kernel.string()).methods) {
    const auto set = defines.find(s.macro);
    if (set != defines.end() ? set->second != "0" : s.enabled_by_default) on.push_back(s);
  }
  return on;
}

// The same assembly as `kopt plan` (catalog/plan_step.hpp): an architecture the profile
// does not name is an error here too, not a silent sm_90. None without evidence.
bool has_evidence(const fs::path& dir) { return fs::exists(dir / "profile.json") && fs::exists(dir / "roofline.json"); }

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

// The JSON file of a step: read it when an earlier run wrote it, else produce and write it.
template <typename Produce>
json once(const fs::path& file, const LoopContext& hooks, std::string_view step, Produce produce) {
  if (fs::exists(file)) return read_json(file);
  json document = produce();
  write_json(file, document);
  step_done(hooks, step);
  return document;
}

json measurement_json(const std::vector<Variant>& variants, const Measurement& m) {
  json document = {{"variants", variants}, {"outcomes", m.outcomes}};
  if (m.reference_median) document["reference_median_s"] = *m.reference_median;
  return document;
}

std::vector<VariantOutcome> outcomes_of(const json& document) {
  return document.at("outcomes").get<std::vector<VariantOutcome>>();
}

// ---- close, step by step ----

struct Branch {
  std::string name;
  Variant variant;  // kernel relative to the run
  bool own_kernel = false;
};

std::vector<Branch> read_branches(const RunFolder& run, int i, const RunState& state) {
  std::vector<Branch> branches;
  for (const std::string& name : branch_names(run, i)) {
    const fs::path dir = run.branches(i) / name;
    Branch b{.name = name, .own_kernel = fs::exists(dir / "kernel.cu")};
    b.variant.label = iter_name(i) + "/" + name;
    b.variant.kernel = b.own_kernel ? run.relative(dir / "kernel.cu") : state.best.kernel;
    // A branch without its own kernel is the best kernel with its defines changed.
    if (!b.own_kernel) b.variant.defines = state.best.defines;
    if (fs::exists(dir / "variant.json")) {
      const fs::path file = dir / "variant.json";
      const json document = read_json(file);
      const json defines = document.is_object() ? document.value("defines", json::object()) : json();
      if (!defines.is_object()) throw input_error("{}: \"defines\" must be an object of NAME: value", file.string());
      for (const auto& [name_, value] : defines.items()) {
        b.variant.defines[name_] = value.is_string() ? value.get<std::string>() : value.dump();
        spec::check_define(name_, b.variant.defines[name_], file.string());
      }
    }
    if (!b.own_kernel && !fs::exists(dir / "variant.json")) {
      throw input_error("{}: a branch needs kernel.cu or variant.json", dir.string());
    }
    branches.push_back(std::move(b));
  }
  if (branches.empty()) {
    throw input_error("{}: no branches: write {}/b1/kernel.cu (or variant.json) first", run.branches(i).string(),
                      run.branches(i).string());
  }
  return branches;
}

std::vector<std::string> validated_methods(const RunFolder& run, int i, const RunState& state) {
  const fs::path file = run.iteration(i) / "methods.json";
  if (!fs::exists(file)) throw input_error("{}: missing: write the methods this iteration tries first", file.string());
  const catalog::MethodsCheck check = catalog::check_methods_file(file, catalog::load_method_catalog(),
                                                                  plan_inputs(run.iteration(i), method_history(run, state)));
  if (!check.ok()) {
    std::string all;
    for (const catalog::Violation& v : check.violations) all += (all.empty() ? "" : "; ") + v.message;
    throw input_error("{}: {} violation(s) of the catalog's rules: {}", file.string(), check.violations.size(), all);
  }
  return check.ids;
}

// What decides a branch's screen result: its source, defines and case, the device and driver
// the run measures on, and the run's settings and spec (tolerances and flags live there).
VariantKey screen_key(const RunFolder& run, const RunState& state, const Variant& variant) {
  const json env = fs::exists(run.root() / "env.json") ? read_json(run.root() / "env.json") : json::object();
  const json device = env.value("device", json::object());
  ContentHasher settings;
  settings.add(std::to_string(state.settings.seeds)).add(std::to_string(state.settings.min_effect));
  if (state.spec && fs::exists(*state.spec)) settings.add(read_file(*state.spec));
  for (const std::string& dim : state.dims) settings.add(dim);
  return {.source_hash = content_hash(read_file(run.absolute(variant.kernel))),
          .defines = variant.define_list(),
          .case_name = state.settings.timed_case,
          .device_uuid = device.value("uuid", device.value("name", "")),
          .driver_version = device.value("driver_api_version", 0),
          .kind = "screen",
          .settings_hash = settings.hex()};
}

// The screen: every branch against the best, interleaved. A branch whose identical variant
// was screened before, on this device and with these settings (the result cache), is not
// measured again: its earlier outcome is used, and listed under "cached".
json screen_branches(Lab& lab, const RunFolder& run, int i, const RunState& state, const Variant& best,
                     const std::vector<Branch>& branches, const LoopContext& context) {
  std::vector<std::optional<VariantOutcome>> cached(branches.size());
  if (context.cache != nullptr) {
    for (std::size_t k = 0; k < branches.size(); ++k) {
      if (auto hit = context.cache->find(screen_key(run, state, branches[k].variant))) {
        cached[k] = hit->get<VariantOutcome>();
        cached[k]->label = branches[k].variant.label;
      }
    }
  }
  std::vector<Variant> measured = {best};
  for (std::size_t k = 0; k < branches.size(); ++k) {
    if (!cached[k]) measured.push_back(branches[k].variant);
  }
  std::vector<Variant> absolute;
  for (const Variant& v : measured) absolute.push_back(run.resolved(v));
  const Measurement m = lab.measure({.variants = absolute});
  if (!m.detail.is_null()) write_json(run.iteration(i) / "screen_bench.json", m.detail);

  std::vector<Variant> variants = {best};
  Measurement combined{.outcomes = {m.outcomes.at(0)}};
  json from_cache = json::array();
  std::size_t next = 1;
  for (std::size_t k = 0; k < branches.size(); ++k) {
    variants.push_back(branches[k].variant);
    if (cached[k]) {
      combined.outcomes.push_back(*cached[k]);
      from_cache.push_back(branches[k].name);
    } else {
      combined.outcomes.push_back(m.outcomes.at(next++));
      if (context.cache != nullptr) context.cache->store(screen_key(run, state, branches[k].variant), combined.outcomes.back());
    }
    write_json(run.branches(i) / branches[k].name / "bench.json", combined.outcomes.back());
  }
  json document = measurement_json(variants, combined);
  document["cached"] = from_cache;
  return document;
}

// The finalists: the fastest passing branches of the screen that beat the best's median.
std::vector<std::size_t> pick_finalists(const std::vector<VariantOutcome>& screen, int count) {
  std::vector<std::size_t> order;
  for (std::size_t k = 1; k < screen.size(); ++k) {
    if (screen[k].passed && screen[k].median < screen[0].median) order.push_back(k);
  }
  std::ranges::stable_sort(order, [&](std::size_t a, std::size_t b) { return screen[a].median < screen[b].median; });
  if (order.size() > static_cast<std::size_t>(count)) order.resize(static_cast<std::size_t>(count));
  return order;
}

// The champion: of the finalists the re-measurement calls faster than the best, the one whose
// speedup is surest (the smallest upper bound of its time ratio). None when none is faster.
std::optional<std::size_t> pick_champion(const std::vector<VariantOutcome>& finals) {
  std::optional<std::size_t> champion;
  for (std::size_t k = 1; k < finals.size(); ++k) {
    const VariantOutcome& o = finals[k];
    if (!o.passed || !o.versus_first || o.versus_first->verdict != "faster") continue;
    if (!champion || o.versus_first->high < finals[*champion].versus_first->high) champion = k;
  }
  return champion;
}

std::string classify(const std::string& sass_status, const std::optional<VariantOutcome>& ablated) {
  if (sass_status == "missing" || sass_status == "switched_off") return "implementation_failed";
  if (!ablated || !ablated->passed || !ablated->versus_first) return "not_ablated";
  return ablated->versus_first->verdict == "slower" ? "effective" : "ineffective";
}

json ablate(Lab& lab, const RunFolder& run, int i, const Variant& champion, const std::vector<std::string>& methods,
            const json& sass) {
  const fs::path champion_kernel = run.absolute(champion.kernel);
  const std::vector<spec::MethodSwitch> on = switches_on(champion_kernel, champion.defines);
  Variant reference = champion;
  reference.label = "champion";
  std::vector<Variant> variants = {reference};
  std::map<std::string, std::string> how;
  for (const std::string& id : methods) {
    Variant v = champion;
    v.label = "without " + id;
    const fs::path written = run.iteration(i) / "ablation" / id / "kernel.cu";
    const auto sw = std::ranges::find(on, id, &spec::MethodSwitch::method_id);
    if (fs::exists(written)) {
      v.kernel = run.relative(written);
      how[id] = "the driver's kernel " + run.relative(written).string();
    } else if (sw != on.end()) {
      v.defines[sw->macro] = "0";
      how[id] = sw->macro + "=0";
    } else {
      continue;
    }
    variants.push_back(std::move(v));
  }
  std::vector<VariantOutcome> outcomes;
  if (variants.size() > 1) {
    std::vector<Variant> absolute;
    for (const Variant& v : variants) absolute.push_back(run.resolved(v));
    outcomes = lab.measure({.variants = absolute}).outcomes;
  }
  json rows = json::array();
  for (const std::string& id : methods) {
    std::string sass_status = "not_verifiable";
    for (const json& s : sass) {
      if (s.at("method") == id) sass_status = s.at("status");
    }
    std::optional<VariantOutcome> ablated;
    for (const VariantOutcome& o : outcomes) {
      if (o.label == "without " + id) ablated = o;
    }
    json row = {{"id", id}, {"sass", sass_status}, {"class", classify(sass_status, ablated)}};
    row["ablation"] = how.contains(id) ? json(how[id]) : json(nullptr);
    if (ablated && ablated->passed && ablated->versus_first) {
      // The ratio is time without the method over time with it: 1.25 means it saves 20 %.
      row["time_ratio_without"] = ablated->versus_first->ratio;
      row["time_ratio_without_ci"] = {ablated->versus_first->low, ablated->versus_first->high};
      row["verdict_without"] = ablated->versus_first->verdict;
    } else if (ablated) {
      row["ablation_failure"] = ablated->failure;
    }
    rows.push_back(std::move(row));
  }
  return {{"champion", champion}, {"methods", rows}, {"outcomes", outcomes}};
}

json evidence_summary(const fs::path& dir) {
  if (!fs::exists(dir / "roofline.json")) return nullptr;
  const json r = read_json(dir / "roofline.json");
  return {{"bound", r.value("bound", "")}, {"gaps", r.value("gaps", json::object())},
          {"near_peak", r.value("near_peak", false)}, {"degraded", r.value("degraded", false)}};
}

// Where the close's wall time went. kopt's own time is what no compile and no GPU worker
// (check, timing, profile, reference) was running: the loop's bookkeeping, planning, file
// and machine-code reading. It is charged to the branches, whose count drives all of it.
json time_spent(double wall, const ProcessTimes& processes, std::size_t branches) {
  const double own = std::max(0.0, wall - processes.compile_or_device_s);
  return {{"wall_s", wall},
          {"compile_s", processes.compile_s},
          {"device_s", processes.device_s},
          {"tools_s", processes.tool_s},
          {"kopt_s", own},
          {"kopt_s_per_branch", branches > 0 ? own / static_cast<double>(branches) : own}};
}

json conclude(const RunFolder& run, int i, const RunState& state, const std::vector<Branch>& branches,
              const std::vector<std::string>& methods, const json& screen, const json& finals,
              const std::optional<std::string>& champion_name, const json& ablation, const json& time) {
  const std::vector<VariantOutcome> screened = outcomes_of(screen);
  json branch_rows = json::array();
  bool any_passed = false;
  for (std::size_t k = 0; k < branches.size(); ++k) {
    const VariantOutcome& o = screened.at(k + 1);
    any_passed = any_passed || o.passed;
    json row = {{"name", branches[k].name}, {"defines", branches[k].variant.defines}, {"outcome", o}};
    branch_rows.push_back(std::move(row));
  }
  json document = {{"schema", "kopt.iteration/1"},
                   {"index", i},
                   {"verdict", champion_name ? "advanced" : any_passed ? "no_gain" : "all_failed"},
                   {"champion", champion_name ? json(*champion_name) : json(nullptr)},
                   {"best_before", {{"label", state.best.label}, {"median_s", screened.at(0).median}}},
                   {"evidence_in", evidence_summary(run.iteration(i))},
                   {"methods_claimed", methods},
                   {"branches", branch_rows},
                   {"elapsed_s", time.at("wall_s")},
                   {"time", time}};
  if (champion_name) {
    const std::vector<VariantOutcome> final_outcomes = outcomes_of(finals);
    for (std::size_t k = 1; k < final_outcomes.size(); ++k) {
      const VariantOutcome& o = final_outcomes[k];
      if (o.label != iter_name(i) + "/" + *champion_name) continue;
      document["champion_median_s"] = o.median;
      document["speedup_vs_best"] = 1 / o.versus_first->ratio;
      document["speedup_vs_best_ci"] = {1 / o.versus_first->high, 1 / o.versus_first->low};
      document["best_before"]["median_s"] = final_outcomes[0].median;
    }
    document["methods"] = ablation.at("methods");
  } else {
    json rows = json::array();
    for (const std::string& id : methods) {
      rows.push_back({{"id", id}, {"class", "tried"}, {"reason", "no branch was significantly faster than the best"}});
    }
    document["methods"] = rows;
  }
  return document;
}

}  // namespace

json method_history(const RunFolder& run, const RunState& state) {
  json methods = json::array();
  for (const IterationState& it : state.iterations) {
    if (it.status != "closed") continue;
    const fs::path file = run.iteration(it.index) / "iteration.json";
    if (!fs::exists(file)) continue;
    for (const json& m : read_json(file).value("methods", json::array())) {
      std::string status = m.value("class", "tried");
      if (status == "not_ablated") status = "tried";
      methods.push_back({{"id", m.at("id")}, {"status", status}, {"iteration", it.index}});
    }
  }
  return {{"methods", methods}};
}

RunState init_run(Lab& lab, const InitRequest& request, const LoopContext& hooks) {
  const RunFolder run(request.run_dir);
  if (run.exists()) {
    throw input_error("{} already holds a run: see kopt status {}", run.root().string(), run.root().string());
  }
  RunLock lock(run);
  const spec::ProblemSpec located = spec::locate_problem(request.kernel, request.spec);
  RunState state{.kernel = fs::absolute(located.kernel), .dims = request.dims, .settings = request.settings};
  if (located.spec_file) state.spec = fs::absolute(*located.spec_file);
  state.created = utc_timestamp();

  write_file_atomic(run.baseline() / "kernel.cu", read_file(located.kernel));
  state.baseline = {.label = "baseline", .kernel = "baseline/kernel.cu", .defines = request.defines};
  write_json(run.baseline() / "variant.json", state.baseline);

  say(hooks, "measuring the baseline");
  const json bench = once(run.baseline() / "bench.json", hooks, "baseline_bench", [&] {
    const Measurement m = lab.measure({.variants = {run.resolved(state.baseline)}, .time_reference = true});
    // Every sample, as the screen and the finals keep theirs: the report draws their spread.
    if (!m.detail.is_null()) write_json(run.baseline() / "baseline_bench.json", m.detail);
    return measurement_json({state.baseline}, m);
  });
  write_json(run.root() / "env.json", lab.environment());
  say(hooks, "profiling the baseline");
  once(run.baseline() / "profile" / "evidence.json", hooks, "baseline_profile", [&] {
    const Evidence e = lab.profile(run.resolved(state.baseline), run.baseline() / "profile");
    return json{{"ok", e.ok}, {"reason", e.reason}};
  });
  once(run.baseline() / "sass.json", hooks, "baseline_sass", [&] {
    std::vector<std::string> ids;
    for (const spec::MethodSwitch& s : switches_on(located.kernel, request.defines)) ids.push_back(s.method_id);
    return json(lab.sass(run.resolved(state.baseline), ids));
  });

  const VariantOutcome baseline = outcomes_of(bench).at(0);
  state.baseline_median_s = baseline.median;
  if (bench.contains("reference_median_s")) state.reference_median_s = bench["reference_median_s"].get<double>();
  state.best = state.baseline;
  state.best_median_s = baseline.median;
  state.iterations = {{.index = 1}};
  copy_evidence(run.baseline() / "profile", run.iteration(1));
  write_plan(run, 1, method_history(run, state));
  run.save(state);
  step_done(hooks, "state");
  return state;
}

json close_iteration(Lab& lab, const RunFolder& run, std::optional<int> iteration, const LoopContext& hooks) {
  RunLock lock(run);
  RunState state = run.load();
  // Run again after it finished, `close` has nothing new to close: it answers as it did.
  const bool untouched = !fs::exists(run.iteration(state.current) / "methods.json") &&
                         branch_names(run, state.current).empty();
  if (!iteration && state.current > 1 && untouched) iteration = state.current - 1;
  const int i = iteration.value_or(state.current);
  if (i < 1 || i > state.current) throw input_error("{}: there is no iteration {} (the current one is {})",
                                                    run.root().string(), i, state.current);
  const fs::path dir = run.iteration(i);
  if (state.iterations.at(static_cast<std::size_t>(i - 1)).status == "closed") return read_json(dir / "iteration.json");
  const auto start = hooks.clock->now();
  const ProcessTimes processes_before = lab.process_times();

  const std::vector<std::string> methods = validated_methods(run, i, state);
  const std::vector<Branch> branches = read_branches(run, i, state);
  Variant best = state.best;
  best.label = "best";

  say(hooks, fmt::format("{}: measuring {} branch(es) against the best", iter_name(i), branches.size()));
  const json screen = once(dir / "screen.json", hooks, "screen",
                           [&] { return screen_branches(lab, run, i, state, best, branches, hooks); });

  const std::vector<VariantOutcome> screened = outcomes_of(screen);
  const std::vector<std::size_t> finalists = pick_finalists(screened, state.settings.finalists);
  say(hooks, fmt::format("{}: re-measuring {} finalist(s) interleaved with the best", iter_name(i), finalists.size()));
  const json finals = once(dir / "finals.json", hooks, "finals", [&] {
    std::vector<Variant> variants = {best};
    for (std::size_t k : finalists) variants.push_back(branches[k - 1].variant);
    if (variants.size() == 1) return json{{"variants", json::array()}, {"outcomes", json::array()}};
    std::vector<Variant> absolute;
    for (const Variant& v : variants) absolute.push_back(run.resolved(v));
    const Measurement m = lab.measure({.variants = absolute});
    if (!m.detail.is_null()) write_json(dir / "finals_bench.json", m.detail);
    return measurement_json(variants, m);
  });

  const std::vector<VariantOutcome> final_outcomes = outcomes_of(finals);
  const std::optional<std::size_t> winner = pick_champion(final_outcomes);
  std::optional<std::string> champion_name;
  json ablation = nullptr;
  if (winner) {
    const Branch& branch = branches[finalists[*winner - 1] - 1];
    champion_name = branch.name;
    const fs::path cdir = run.champion(i);
    Variant champion = branch.variant;
    champion.label = iter_name(i) + "/champion";
    champion.kernel = run.relative(cdir / "kernel.cu");
    const json chosen = once(cdir / "variant.json", hooks, "champion", [&] {
      write_file_atomic(cdir / "kernel.cu", read_file(run.absolute(branch.variant.kernel)));
      write_json(cdir / "bench.json", final_outcomes[*winner]);
      return json(champion);
    });
    champion = chosen.get<Variant>();
    say(hooks, fmt::format("{}: champion {} ({}); profiling it", iter_name(i), branch.name,
                           describe_defines(champion.defines)));
    once(cdir / "profile" / "evidence.json", hooks, "profile", [&] {
      const Evidence e = lab.profile(run.resolved(champion), cdir / "profile");
      return json{{"ok", e.ok}, {"reason", e.reason}};
    });
    std::vector<std::string> checked = methods;
    for (const spec::MethodSwitch& s : switches_on(run.absolute(champion.kernel), champion.defines)) {
      if (std::ranges::find(checked, s.method_id) == checked.end()) checked.push_back(s.method_id);
    }
    const json sass = once(cdir / "sass.json", hooks, "sass", [&] { return json(lab.sass(run.resolved(champion), checked)); });
    say(hooks, fmt::format("{}: ablating {} method(s)", iter_name(i), checked.size()));
    ablation = once(dir / "ablation.json", hooks, "ablation", [&] { return ablate(lab, run, i, champion, checked, sass); });
  }

  const double elapsed = std::chrono::duration<double>(hooks.clock->now() - start).count();
  const json time = time_spent(elapsed, lab.process_times() - processes_before, branches.size());
  const json verdict = once(dir / "iteration.json", hooks, "conclude", [&] {
    return conclude(run, i, state, branches, methods, screen, finals, champion_name, ablation, time);
  });

  say(hooks, fmt::format("{}: {}", iter_name(i), verdict.at("verdict").get<std::string>()));
  IterationState& record = state.iterations.at(static_cast<std::size_t>(i - 1));
  record.status = "closed";
  record.verdict = verdict.at("verdict");
  record.champion = champion_name.value_or("");
  bool near_peak = false;
  fs::path next_evidence = dir;
  if (champion_name) {
    state.best = read_json(run.champion(i) / "variant.json").get<Variant>();
    state.best_iteration = i;
    state.best_median_s = verdict.at("champion_median_s");
    if (has_evidence(run.champion(i) / "profile")) {
      next_evidence = run.champion(i) / "profile";
      near_peak = read_json(next_evidence / "roofline.json").value("near_peak", false);
    }
  }
  record.best_median_s = state.best_median_s;
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
               {"finished", state.finished}};
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
  if (!fs::exists(dir / "methods.json")) write.push_back(it + "/methods.json");
  if (branch_names(run, state.current).empty()) {
    for (int k = 1; k <= state.settings.branches; ++k) write.push_back(fmt::format("{}/branches/b{}/kernel.cu", it, k));
  }
  next["write"] = write;
  next["best_kernel"] = state.best.kernel.string();
  next["best_defines"] = state.best.defines;
  next["phase"] = fs::exists(dir / "screen.json") ? "closing" : write.empty() ? "ready_to_close" : "awaiting_branches";
  next["command"] = fmt::format("kopt close {}", run.root().string());
  return next;
}

}  // namespace kopt::loop
