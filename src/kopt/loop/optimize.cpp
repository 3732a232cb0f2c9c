#include "kopt/loop/optimize.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>

#include "kopt/core/error.hpp"
#include "kopt/core/file_queries.hpp"
#include "kopt/core/files.hpp"
#include "kopt/loop/builtin_generators.hpp"
#include "kopt/loop/screen_settings.hpp"
#include "kopt/loop/tuner.hpp"

namespace kopt::loop {
namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

constexpr int kGeneratorAttempts = 3;

json file_or_null(const fs::path& file) { return path_exists(file) ? read_json(file) : json(nullptr); }

void run_generator(ProcessRunner& runner, const OptimizeRequest& request, const RunFolder& run, const RunState& state,
                   const json& errors) {
  const fs::path context = run.iteration(state.current) / "generator_context.json";
  write_json(context, generator_context(run, state, errors));
  const std::string command = generator_shell_command(*request.generator, run.root());
  const ProcessResult result = runner.run({.argv = {"/bin/sh", "-c", command + " \"$0\"", context.string()},
                                           .time_limit = std::chrono::duration<double>(request.generator_timeout_s)});
  if (result.timed_out) throw input_error("the generator ran past {} s: {}", request.generator_timeout_s, *request.generator);
  if (!result.ok()) {
    throw input_error("the generator failed (exit {}): {}: {}", result.exit_status, *request.generator,
                      result.started ? result.err.substr(0, 400) : result.start_error);
  }
}

// The failures of an iteration's screen, for the generator's next attempt.
json screen_failures(const fs::path& screen_file) {
  json errors = json::array();
  const json screen = read_json(screen_file);
  for (const json& o : screen.at("outcomes")) {
    if (!o.at("passed").get<bool>()) errors.push_back({{"branch", o.at("label")}, {"failure", o.at("failure")}});
  }
  return errors;
}

// Puts an all-failed attempt aside (iterN/attemptK/) and restores the state from before it,
// so that the generator can try the same iteration again.
void reopen_after_failure(const RunFolder& run, int i, const json& state_before, int attempt) {
  const fs::path dir = run.iteration(i);
  const fs::path aside = dir / fmt::format("attempt{}", attempt);
  create_folders(aside);
  for (const char* name : {"branches", "methods.json", "screen.json", "screen_bench.json", "finals.json", "iteration.json"}) {
    if (path_exists(dir / name)) move_path(dir / name, aside / name);
  }
  remove_folder(run.iteration(i + 1));
  write_json(run.state_file(), state_before);
}

}  // namespace

json generator_context(const RunFolder& run, const RunState& state, const json& errors) {
  const int i = state.current;
  const fs::path dir = run.iteration(i);
  return {{"schema", "kopt.generator_context/1"},
          {"run", fs::absolute(run.root()).string()},
          {"iteration", i},
          {"branches", state.settings.branches},
          {"best_kernel", fs::absolute(run.absolute(state.best.kernel)).string()},
          {"best_defines", state.best.defines},
          {"best_median_s", state.best_median_s},
          {"plan", file_or_null(dir / "plan.json")},
          {"roofline", file_or_null(dir / "roofline.json")},
          {"ncu_top", file_or_null(dir / "ncu_top.json")},
          {"history", file_or_null(dir / "history.json")},
          {"write",
           {{"methods", fs::absolute(dir / "methods.json").string()},
            {"branches", fs::absolute(run.branches(i)).string()},
            {"branch_files", "BRANCHES/bK/" + kernel_file_like(state.kernel) +
                                 ", or BRANCHES/bK/variant.json {\"defines\": {...}}"}}},
          {"errors", errors}};
}

int budget_evaluations(const OptimizeRequest& request) {
  const RunSettings& settings = request.init.settings;
  const double affordable = request.time_budget_s / 60 * screen_settings().branches_per_minute;
  return static_cast<int>(std::min(static_cast<double>(settings.iterations) * settings.branches, affordable));
}

RunState optimize(Lab& lab, ProcessRunner& runner, const OptimizeRequest& request, const LoopContext& hooks) {
  const RunFolder run(request.init.run_dir);
  if (!run.exists()) init_run(lab, request.init, hooks);
  // The budget is the search's: it starts when the baseline is measured and profiled, so that
  // a budget shorter than init (tens of seconds on a GPU) still searches (docs/guide.md).
  const auto start = hooks.clock->now();
  // A kopt killed outright may have left temporaries, also in a finished run (its summary);
  // taking the lock removes them (the loop's steps take it again, one at a time).
  { const RunLock cleaning(run); }
  for (;;) {
    RunState state = run.load();
    if (state.finished) return state;
    const double elapsed = std::chrono::duration<double>(hooks.clock->now() - start).count();
    if (elapsed > request.time_budget_s) {
      stop_run(run, "time_budget");
      return run.load();
    }
    const int i = state.current;
    const json state_before = read_json(run.state_file());
    for (int attempt = 1;; ++attempt) {
      const bool has_branches = !branch_names(run, i).empty() && path_exists(run.iteration(i) / "methods.json");
      if (!has_branches) {
        if (hooks.progress) hooks.progress(fmt::format("iter{}: generating branches", i));
        if (!request.generator) {
          const TunerRequest tuner{.seed = request.seed, .strategy = request.strategy,
                                   .budget_evaluations = budget_evaluations(request)};
          if (write_tuner_branches(run, state, tuner) == 0) {
            stop_run(run, "search_space_exhausted");
            return run.load();
          }
        } else {
          const fs::path failed_screen = run.iteration(i) / fmt::format("attempt{}", attempt - 1) / "screen.json";
          run_generator(runner, request, run, state, attempt > 1 ? screen_failures(failed_screen) : json::array());
        }
      }
      const json verdict = close_iteration(lab, run, i, hooks);
      if (!request.generator || verdict.at("verdict") != "all_failed" || attempt >= kGeneratorAttempts) break;
      reopen_after_failure(run, i, state_before, attempt);
    }
  }
}

}  // namespace kopt::loop
