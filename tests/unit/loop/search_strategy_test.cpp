// The tuner's search strategies on synthetic objectives: deterministic seeds, no GPU. Each
// "run" is the loop the tuner sees: batches of 8 proposals, each measured (the objective) and
// added to the observations the next batch is proposed from.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <numeric>

#include "kopt/core/error.hpp"
#include "kopt/loop/search_strategy.hpp"

namespace kopt::loop {
namespace {

using Objective = std::function<std::optional<double>(const Defines&)>;

SearchSpace grid(int params, int values) {
  SearchSpace space;
  for (int p = 0; p < params; ++p) {
    std::vector<std::string> v;
    for (int x = 0; x < values; ++x) v.push_back(std::to_string(x));
    const std::string name = "P" + std::to_string(p);
    space.params.emplace_back(name, v);
    space.defaults[name] = "0";
  }
  return space;
}

// Separable: every parameter multiplies the time by its own factor, each with its own optimum.
Objective separable(int params) {
  return [params](const Defines& c) -> std::optional<double> {
    double t = 1e-3;
    for (int p = 0; p < params; ++p) {
      const int v = std::stoi(c.at("P" + std::to_string(p)));
      const int best = (p * 7 + 3) % 6;
      t *= 1 + 0.15 * (p + 1) * std::abs(v - best) / 5.0 + (v == best ? 0 : 0.05);
    }
    return t;
  };
}

struct Trace {
  int evaluations_to_optimum = -1;  // -1: never found
  double best = INFINITY;
  int evaluations = 0;
};

Trace search(Strategy strategy, const SearchSpace& space, const Objective& f, const Defines& optimum, int budget,
             std::uint64_t seed) {
  SearchRequest request{.count = 8, .budget_evaluations = budget, .seed = seed};
  Trace trace;
  Defines champion = space.defaults;
  for (request.iteration = 1; trace.evaluations < budget; ++request.iteration) {
    request.centre = champion;
    const Proposal batch = propose_by_strategy(strategy, space, request);
    if (batch.configurations.empty()) break;
    for (const Defines& c : batch.configurations) {
      EXPECT_FALSE(request.tried.contains(c)) << "proposed twice";
      EXPECT_TRUE(space.allows(c)) << "a disallowed configuration proposed";
      request.tried.insert(c);
      const std::optional<double> seconds = f(c);
      request.observed.push_back({c, seconds});
      ++trace.evaluations;
      if (seconds && *seconds < trace.best) {
        trace.best = *seconds;
        champion = c;
      }
      if (c == optimum && trace.evaluations_to_optimum < 0) trace.evaluations_to_optimum = trace.evaluations;
    }
  }
  return trace;
}

Defines separable_optimum(int params) {
  Defines optimum;
  for (int p = 0; p < params; ++p) optimum["P" + std::to_string(p)] = std::to_string((p * 7 + 3) % 6);
  return optimum;
}

TEST(SearchStrategy, TheModelFindsASeparableOptimumInFewerEvaluationsThanRandom) {
  const SearchSpace space = grid(6, 6);  // 46656 configurations
  const Objective f = separable(6);
  const int budget = 240;
  int model_total = 0, random_total = 0;
  for (std::uint64_t seed = 1; seed <= 5; ++seed) {
    const Trace model = search(Strategy::model, space, f, separable_optimum(6), budget, seed);
    const Trace random = search(Strategy::random, space, f, separable_optimum(6), budget, seed);
    EXPECT_GT(model.evaluations_to_optimum, 0) << "seed " << seed << ": the model never found the optimum";
    model_total += model.evaluations_to_optimum > 0 ? model.evaluations_to_optimum : budget + 1;
    random_total += random.evaluations_to_optimum > 0 ? random.evaluations_to_optimum : budget + 1;
    EXPECT_LE(model.best, random.best) << "seed " << seed;
  }
  RecordProperty("model_evaluations_to_optimum_sum", model_total);  // in the XML/JSON output
  RecordProperty("random_evaluations_to_optimum_sum", random_total);
  EXPECT_LT(model_total * 2, random_total);  // at least twice as fast on average
}

TEST(SearchStrategy, AnnealingBeatsRandomSamplingOnASmoothSpace) {
  const SearchSpace space = grid(8, 6);  // 1.7 million configurations
  const Objective f = separable(8);
  double annealing = 0, random = 0;
  for (std::uint64_t seed = 1; seed <= 5; ++seed) {
    annealing += std::log(search(Strategy::annealing, space, f, separable_optimum(8), 160, seed).best);
    random += std::log(search(Strategy::random, space, f, separable_optimum(8), 160, seed).best);
  }
  RecordProperty("annealing_mean_log_best", std::to_string(annealing / 5));
  RecordProperty("random_mean_log_best", std::to_string(random / 5));
  EXPECT_LT(annealing, random);
}

TEST(SearchStrategy, LocalSearchClimbsToTheOptimumOfAUnimodalSpace) {
  const SearchSpace space = grid(4, 6);
  const Trace local = search(Strategy::local, space, separable(4), separable_optimum(4), 400, 3);
  EXPECT_GT(local.evaluations_to_optimum, 0);
}

TEST(SearchStrategy, EveryStrategyKeepsToTheRestrictionsAndRepeatsItselfForOneSeed) {
  SearchSpace space = grid(3, 6);
  space.restrictions = {spec::Expression::parse("P0 + P1 <= 5")};
  for (Strategy s : {Strategy::random, Strategy::local, Strategy::model, Strategy::annealing}) {
    const Trace a = search(s, space, separable(3), separable_optimum(3), 48, 11);  // asserts allowed, untried
    const Trace b = search(s, space, separable(3), separable_optimum(3), 48, 11);
    EXPECT_EQ(a.best, b.best) << strategy_name(s);
    EXPECT_EQ(a.evaluations, b.evaluations) << strategy_name(s);
  }
}

TEST(SearchStrategy, FailedConfigurationsAreAvoidedByTheModel) {
  const SearchSpace space = grid(2, 6);
  // P0 = 5 always fails; the model fitted on that learns its value is the worst.
  std::vector<Observation> observed;
  for (int a = 0; a < 6; ++a) {
    for (int b = 0; b < 6; b += 2) {
      const Defines c = {{"P0", std::to_string(a)}, {"P1", std::to_string(b)}};
      observed.push_back({c, a == 5 ? std::nullopt : std::optional<double>(1e-3 * (1 + a) * (1 + b))});
    }
  }
  const AdditiveModel model = fit_additive_model(space, observed);
  EXPECT_GT(model.predict(space, {{"P0", "5"}, {"P1", "0"}}), model.predict(space, {{"P0", "4"}, {"P1", "0"}}));
  EXPECT_LT(model.predict(space, {{"P0", "0"}, {"P1", "0"}}), model.predict(space, {{"P0", "3"}, {"P1", "0"}}));
  // Unmeasured P1 = 1 sits between its measured neighbours only through the exploration bonus,
  // not the fit: its effect is 0 (no evidence).
  EXPECT_EQ(model.effect[1].count("1"), 0u);
}

TEST(SearchStrategy, AnnealingFollowsKernelTunersAcceptanceRuleAndSchedule) {
  EXPECT_EQ(annealing_acceptance(std::nullopt, 2.0, 0.5), 1.0);   // the start failed: always move
  EXPECT_EQ(annealing_acceptance(1.0, std::nullopt, 0.5), 0.0);   // never onto a failure
  EXPECT_EQ(annealing_acceptance(2.0, 1.0, 0.5), 1.0);            // better: always
  EXPECT_DOUBLE_EQ(annealing_acceptance(1.0, 1.5, 0.5), std::exp(-0.5 / 0.5));
  EXPECT_DOUBLE_EQ(annealing_temperature(0, 100), 1.0);
  // The schedule is stretched over the budget: at its end the temperature reaches T_min.
  EXPECT_NEAR(annealing_temperature(100, 100), 0.001, 0.00002);
  EXPECT_NEAR(annealing_temperature(1379, 0), 0.001, 0.00002);  // no budget: Kernel Tuner's 1379 steps
}

TEST(SearchStrategy, AutoChoosesTheModelOnlyWhenTheBudgetAffordsIt) {
  const SearchSpace space = grid(4, 6);  // 24 values
  EXPECT_EQ(resolve_strategy(Strategy::automatic, space, 47), Strategy::local);
  EXPECT_EQ(resolve_strategy(Strategy::automatic, space, 48), Strategy::model);
  EXPECT_EQ(resolve_strategy(Strategy::annealing, space, 1), Strategy::annealing);
  EXPECT_EQ(parse_strategy("annealing"), Strategy::annealing);
  EXPECT_THROW(parse_strategy("bayes"), Error);
}

}  // namespace
}  // namespace kopt::loop
