#pragma once
// The built-in tuner's search strategies (docs/loop.md, "The built-in tuner"). Each proposes
// the next batch of configurations from the ones measured so far; all of them propose only
// configurations the space's restrictions allow (so nothing disallowed is compiled), never one
// already tried, and the same batch for the same seed and observations.
//
//   random     uniform over the allowed configurations (Kernel Tuner's random_sample)
//   local      random first, then neighbours of the champion, a quarter random (the tuner before)
//   model      an additive surrogate of log(time): a per-parameter-value effect fitted by
//              backfitting, minus an exploration bonus for values seldom measured
//   annealing  Kernel Tuner's simulated_annealing, its acceptance rule and schedule, in batches
//   auto       model when the budget affords a few measurements per parameter value, else local

#include <cstdint>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "kopt/loop/tuner.hpp"

namespace kopt::loop {

enum class Strategy { automatic, random, local, model, annealing };

// "auto", "random", ...; input_error naming the known ones for anything else.
Strategy parse_strategy(std::string_view name);
std::string_view strategy_name(Strategy strategy);

// One configuration measured, in the order measured; no seconds: it failed.
struct Observation {
  Defines configuration;
  std::optional<double> seconds;
};

struct SearchRequest {
  Defines centre;                         // the champion's configuration
  std::vector<Observation> observed;      // every branch measured so far, in order
  std::set<Defines> tried;                // never proposed again
  int count = 0;                          // configurations wanted
  int iteration = 1;
  int budget_evaluations = 0;             // how many the whole run can afford (annealing's schedule)
  std::uint64_t seed = 1;
};

// `automatic` resolved by the budget: the additive model needs a few measurements of each
// parameter value before it predicts better than chance.
Strategy resolve_strategy(Strategy strategy, const SearchSpace& space, int budget_evaluations);

// The next batch of `strategy` (resolved).
Proposal propose_by_strategy(Strategy strategy, const SearchSpace& space, const SearchRequest& request);

// ---- the pieces, exposed for their tests ----

// The additive model's predicted log(seconds) of `configuration` (no bonus), fitted on `observed`.
struct AdditiveModel {
  double mean = 0;
  std::vector<std::map<std::string, double>> effect;  // per parameter: value → effect on log time
  std::vector<std::map<std::string, int>> count;      // per parameter: value → observations
  double spread = 0.1;                                // stdev of log time (bonus scale)
  double predict(const SearchSpace& space, const Defines& configuration) const;
};
AdditiveModel fit_additive_model(const SearchSpace& space, const std::vector<Observation>& observed);

// Kernel Tuner's simulated annealing: the acceptance probability of moving from a position
// costing `old_cost` to one costing `new_cost` (none: the configuration failed) at temperature
// `t`, and the temperature after `evaluations` of a run of `max_evaluations`.
double annealing_acceptance(std::optional<double> old_cost, std::optional<double> new_cost, double t);
double annealing_temperature(int evaluations, int max_evaluations);

}  // namespace kopt::loop
