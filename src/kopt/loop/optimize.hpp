#pragma once
// `kopt optimize`: the whole loop, unattended. Each iteration's branches come from the
// built-in tuner or from an external generator command; close does the rest; the run ends
// when the iterations are done, the roofline says near peak, or the time budget is spent.
// A run folder that exists is resumed where it stopped.

#include <cstdint>
#include <optional>
#include <string>

#include "kopt/core/process.hpp"
#include "kopt/loop/run_loop.hpp"

namespace kopt::loop {

struct OptimizeRequest {
  InitRequest init;
  std::optional<std::string> generator;  // a shell command; empty: the built-in tuner
  double time_budget_s = 15 * 60;  // the search's, counted from the end of init
  double generator_timeout_s = 600;
  std::uint64_t seed = 1;
  std::string strategy = "auto";  // the built-in tuner's search (search_strategy.hpp)
};

// The branches `request` can afford: its iterations times branches, at most its budget at the
// staged screen's rate (data/screen.toml). `--strategy auto` and annealing's schedule use it.
int budget_evaluations(const OptimizeRequest& request);

// The context file an external generator reads (kopt.generator_context/1), written into the
// iteration's folder; `errors` are the failures of its previous attempt, if any.
nlohmann::json generator_context(const RunFolder& run, const RunState& state, const nlohmann::json& errors);

RunState optimize(Lab& lab, ProcessRunner& runner, const OptimizeRequest& request, const LoopContext& hooks = {});

}  // namespace kopt::loop
