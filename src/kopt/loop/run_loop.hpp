#pragma once
// The iteration loop over a run folder (docs/design.md §3, §5): init creates the run and the
// first iteration's evidence; close turns the branches a driver wrote into a verdict and the
// next iteration's evidence. Each step of close writes its file once, atomically, and is
// skipped when its file exists, so a close killed at any point and run again ends in the
// same state as one that never stopped (docs/loop.md).

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "kopt/core/context.hpp"
#include "kopt/loop/lab.hpp"
#include "kopt/loop/result_cache.hpp"
#include "kopt/loop/run_state.hpp"

namespace kopt::loop {

struct LoopContext {
  std::function<void(std::string_view step)> after_step;   // tests kill the loop here
  std::function<void(const std::string& line)> progress;   // one line per step, for people
  ResultCache* cache = nullptr;  // screen results shared across runs; none: every branch is measured
  const Clock* clock = &steady_clock();  // the loop's elapsed time (a close's wall_s, the budget)
};

struct InitRequest {
  std::filesystem::path kernel;
  std::optional<std::filesystem::path> spec;
  std::vector<std::string> dims;
  Defines defines;                 // the baseline's -D overrides
  RunSettings settings;
  std::filesystem::path run_dir;
};

// Creates the run: env.json, baseline/ (kernel copy, bench.json, profile/, sass.json),
// iter1/ evidence and plan.json, state.json (written last: a run without it is resumed by
// running init again). Throws input_error when `run_dir` already holds a run.
RunState init_run(Lab& lab, const InitRequest& request, const LoopContext& hooks = {});

// Closes iteration `iteration` (default: the current one, or the one just closed while the
// driver has written nothing for the next). Closing a closed iteration changes nothing and
// returns its iteration.json.
nlohmann::json close_iteration(Lab& lab, const RunFolder& run, std::optional<int> iteration = std::nullopt,
                               const LoopContext& hooks = {});

// Where the run stands and what its driver does next (kopt.next/1): the files to write, the
// evidence to read, the command to run.
nlohmann::json next_step(const RunFolder& run, const RunState& state);

// The methods tried so far, with their classification (history.json for the planner).
nlohmann::json method_history(const RunFolder& run, const RunState& state);

// Ends the run early (a time budget, say); the summary still covers what was closed.
void stop_run(const RunFolder& run, const std::string& reason);

}  // namespace kopt::loop
