#include "kopt/loop/search_strategy.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "kopt/core/error.hpp"

namespace kopt::loop {

namespace {

constexpr std::pair<Strategy, std::string_view> kNames[] = {{Strategy::automatic, "auto"},
                                                           {Strategy::random, "random"},
                                                           {Strategy::local, "local"},
                                                           {Strategy::model, "model"},
                                                           {Strategy::annealing, "annealing"}};

// Draws that may land on tried or disallowed configurations before a batch gives up.
constexpr int kRandomAttempts = 20000;

std::uint64_t batch_seed(const SearchRequest& request) {
  return request.seed * 1000003 + static_cast<std::uint64_t>(request.iteration);
}

// An allowed configuration not in `taken`, uniformly among those (rejection); none when the
// draws run out.
std::optional<Defines> random_untaken(const SearchSpace& space, const std::set<Defines>& taken, std::mt19937_64& rng) {
  for (int attempt = 0; attempt < kRandomAttempts; ++attempt) {
    Defines config = random_configuration(space, rng);
    if (!taken.contains(config) && space.allows(config)) return config;
  }
  return std::nullopt;
}

// ---- model ----

// Failed configurations count as twice the slowest time seen: the model learns to avoid them.
std::vector<std::pair<Defines, double>> log_times(const std::vector<Observation>& observed) {
  double worst = -INFINITY;
  for (const Observation& o : observed) {
    if (o.seconds && *o.seconds > 0) worst = std::max(worst, std::log(*o.seconds));
  }
  std::vector<std::pair<Defines, double>> out;
  if (!std::isfinite(worst)) return out;
  for (const Observation& o : observed) {
    out.emplace_back(o.configuration, o.seconds && *o.seconds > 0 ? std::log(*o.seconds) : worst + std::log(2.0));
  }
  return out;
}

// Exploration: a value measured n times earns kBonus * spread / sqrt(n + 1) off its prediction.
constexpr double kBonus = 0.5;
// Shrinkage of a value's effect toward 0: (sum of residuals) / (n + kShrink).
constexpr double kShrink = 1.0;
constexpr int kBackfitPasses = 4;
constexpr std::size_t kModelPool = 2000;

double model_score(const AdditiveModel& model, const SearchSpace& space, const Defines& config, double predicted) {
  double bonus = 0;
  for (std::size_t p = 0; p < space.params.size(); ++p) {
    const auto seen = model.count[p].find(config.at(space.params[p].first));
    const int n = seen == model.count[p].end() ? 0 : seen->second;
    bonus += kBonus * model.spread / std::sqrt(n + 1.0);
  }
  return predicted - bonus;
}

// The candidates the model ranks: random allowed configurations, and the neighbours of the
// best few measured (where a separable model's next step most likely is).
std::vector<Defines> model_pool(const SearchSpace& space, const SearchRequest& request, std::mt19937_64& rng) {
  std::set<Defines> pool;
  std::vector<Observation> best = request.observed;
  std::erase_if(best, [](const Observation& o) { return !o.seconds; });
  std::ranges::sort(best, {}, [](const Observation& o) { return *o.seconds; });
  if (best.size() > 3) best.resize(3);
  for (const Observation& o : best) {
    for (std::size_t p = 0; p < space.params.size(); ++p) {
      for (const std::string& value : space.params[p].second) {
        Defines moved = o.configuration;
        moved[space.params[p].first] = value;
        if (!request.tried.contains(moved) && space.allows(moved)) pool.insert(moved);
      }
    }
  }
  for (std::size_t k = 0; k < kModelPool; ++k) {
    if (auto config = random_untaken(space, request.tried, rng)) pool.insert(*config);
  }
  return {pool.begin(), pool.end()};
}

Proposal propose_model(const SearchSpace& space, const SearchRequest& request) {
  const std::vector<std::pair<Defines, double>> data = log_times(request.observed);
  if (data.size() < 2) return propose_configurations(space, request.centre, request.tried, request.count, false, batch_seed(request));
  std::mt19937_64 rng(batch_seed(request));
  AdditiveModel model = fit_additive_model(space, request.observed);
  std::vector<std::pair<Defines, double>> pool;  // each candidate with its prediction (fixed)
  for (Defines& c : model_pool(space, request, rng)) {
    const double predicted = model.predict(space, c);
    pool.emplace_back(std::move(c), predicted);
  }
  Proposal proposal;
  // Greedy batch: each pick counts as one more observation of its values, so the bonus of
  // the next picks moves the batch to values not yet chosen.
  while (static_cast<int>(proposal.configurations.size()) < request.count && !pool.empty()) {
    auto scored = std::ranges::min_element(pool, {}, [&](const auto& c) { return model_score(model, space, c.first, c.second); });
    const Defines chosen = scored->first;
    pool.erase(scored);
    for (std::size_t p = 0; p < space.params.size(); ++p) ++model.count[p][chosen.at(space.params[p].first)];
    proposal.configurations.push_back(chosen);
    proposal.kinds.emplace_back("model");
  }
  return proposal;
}

// ---- annealing (Kernel Tuner's simulated_annealing.py, its defaults) ----

constexpr double kStartTemperature = 1.0;
constexpr double kMinTemperature = 0.001;
constexpr double kAlpha = 0.995;
constexpr double kHammingShare = 0.2;  // of neighbour draws; the rest strictly adjacent
constexpr int kStuckDraws = 100;       // draws onto known configurations before a random restart

int schedule_length() { return static_cast<int>(std::ceil(std::log(kMinTemperature) / std::log(kAlpha))); }

// Hamming: one parameter set to any other value. Strictly adjacent: every parameter at most
// one step through its values, at least one moved. Both within the restrictions.
std::vector<Defines> annealing_neighbours(const SearchSpace& space, const Defines& pos, bool hamming) {
  std::vector<Defines> out;
  if (hamming) {
    for (const auto& [name, values] : space.params) {
      for (const std::string& value : values) {
        if (value == pos.at(name)) continue;
        Defines moved = pos;
        moved[name] = value;
        if (space.allows(moved)) out.push_back(std::move(moved));
      }
    }
    return out;
  }
  std::vector<int> step(space.params.size(), -1);
  for (;;) {
    Defines moved = pos;
    bool valid = std::ranges::any_of(step, [](int s) { return s != 0; });
    for (std::size_t p = 0; p < space.params.size() && valid; ++p) {
      const auto& [name, values] = space.params[p];
      const long index = static_cast<long>(index_of(values, pos.at(name))) + step[p];
      valid = index >= 0 && index < static_cast<long>(values.size());
      if (valid) moved[name] = values[static_cast<std::size_t>(index)];
    }
    if (valid && space.allows(moved)) out.push_back(std::move(moved));
    std::size_t p = 0;
    while (p < step.size() && step[p] == 1) step[p++] = -1;
    if (p == step.size()) break;
    ++step[p];
  }
  return out;
}

struct Chain {
  Defines pos;
  std::optional<double> cost;
  bool started = false;
};

// The chain as Kernel Tuner's loop would have left it after the measured configurations, in
// the order measured: each one is a move proposed from the position before it, taken by the
// acceptance rule at the temperature of its evaluation.
Chain replay_chain(const SearchRequest& request, std::mt19937_64& rng, int max_evaluations) {
  Chain chain;
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  for (std::size_t k = 0; k < request.observed.size(); ++k) {
    const Observation& o = request.observed[k];
    if (!chain.started) {
      chain = {o.configuration, o.seconds, true};
      continue;
    }
    const double t = k == 1 ? kStartTemperature : annealing_temperature(static_cast<int>(k), max_evaluations);
    if (annealing_acceptance(chain.cost, o.seconds, t) > uniform(rng)) chain = {o.configuration, o.seconds, true};
  }
  return chain;
}

Proposal propose_annealing(const SearchSpace& space, const SearchRequest& request) {
  const int max_evaluations = request.budget_evaluations > 0 ? request.budget_evaluations : schedule_length();
  std::mt19937_64 replay_rng(request.seed);
  Chain chain = replay_chain(request, replay_rng, max_evaluations);
  std::mt19937_64 rng(batch_seed(request));
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  std::map<Defines, std::optional<double>> known;
  for (const Observation& o : request.observed) known[o.configuration] = o.seconds;
  Proposal proposal;
  std::set<Defines> taken = request.tried;
  auto take = [&](const Defines& config, const char* kind) {
    taken.insert(config);
    proposal.configurations.push_back(config);
    proposal.kinds.emplace_back(kind);
  };
  if (!chain.started) {  // Kernel Tuner starts from one random configuration
    const std::optional<Defines> start = random_untaken(space, taken, rng);
    if (!start) return proposal;
    take(*start, "random");
    chain = {*start, std::nullopt, true};
  }
  const double t = annealing_temperature(static_cast<int>(request.observed.size()), max_evaluations);
  std::map<std::pair<Defines, bool>, std::vector<Defines>> neighbourhoods;  // the chain seldom moves within a batch
  int stuck = 0;
  while (static_cast<int>(proposal.configurations.size()) < request.count) {
    const bool hamming = uniform(rng) < kHammingShare;
    auto [slot, fresh] = neighbourhoods.try_emplace({chain.pos, hamming});
    if (fresh) slot->second = annealing_neighbours(space, chain.pos, hamming);
    const std::vector<Defines>& around = slot->second;
    std::optional<Defines> next;
    if (!around.empty()) next = around[std::uniform_int_distribution<std::size_t>(0, around.size() - 1)(rng)];
    else next = random_untaken(space, taken, rng);
    if (!next) break;
    if (!taken.contains(*next)) {
      take(*next, "annealing");
      stuck = 0;
      continue;
    }
    // A move onto a configuration already measured costs nothing: taken or not by the same rule.
    if (const auto cost = known.find(*next); cost != known.end() && annealing_acceptance(chain.cost, cost->second, t) > uniform(rng)) {
      chain = {*next, cost->second, true};
    }
    if (++stuck > kStuckDraws) {
      const std::optional<Defines> restart = random_untaken(space, taken, rng);
      if (!restart) break;
      take(*restart, "random");
      chain = {*restart, std::nullopt, true};
      stuck = 0;
    }
  }
  return proposal;
}

std::size_t value_count(const SearchSpace& space) {
  return std::accumulate(space.params.begin(), space.params.end(), std::size_t{0},
                         [](std::size_t sum, const auto& p) { return sum + p.second.size(); });
}

}  // namespace

Strategy parse_strategy(std::string_view name) {
  for (const auto& [strategy, text] : kNames) {
    if (text == name) return strategy;
  }
  throw input_error("unknown --strategy \"{}\" (known: auto, random, local, model, annealing)", name);
}

std::string_view strategy_name(Strategy strategy) {
  for (const auto& [s, text] : kNames) {
    if (s == strategy) return text;
  }
  return "?";
}

Strategy resolve_strategy(Strategy strategy, const SearchSpace& space, int budget_evaluations) {
  if (strategy != Strategy::automatic) return strategy;
  return static_cast<std::size_t>(budget_evaluations) >= 2 * value_count(space) ? Strategy::model : Strategy::local;
}

Proposal propose_by_strategy(Strategy strategy, const SearchSpace& space, const SearchRequest& request) {
  switch (strategy) {
    case Strategy::random:
      return propose_configurations(space, request.centre, request.tried, request.count, false, batch_seed(request));
    case Strategy::model: return propose_model(space, request);
    case Strategy::annealing: return propose_annealing(space, request);
    case Strategy::local:
    case Strategy::automatic: break;
  }
  return propose_configurations(space, request.centre, request.tried, request.count, request.iteration > 1,
                                batch_seed(request));
}

double AdditiveModel::predict(const SearchSpace& space, const Defines& configuration) const {
  double y = mean;
  for (std::size_t p = 0; p < space.params.size(); ++p) {
    const auto e = effect[p].find(configuration.at(space.params[p].first));
    if (e != effect[p].end()) y += e->second;
  }
  return y;
}

AdditiveModel fit_additive_model(const SearchSpace& space, const std::vector<Observation>& observed) {
  const std::vector<std::pair<Defines, double>> data = log_times(observed);
  AdditiveModel model;
  model.effect.resize(space.params.size());
  model.count.resize(space.params.size());
  if (data.empty()) return model;
  double sum = 0, squares = 0;
  for (const auto& [config, y] : data) sum += y;
  model.mean = sum / static_cast<double>(data.size());
  for (const auto& [config, y] : data) squares += (y - model.mean) * (y - model.mean);
  if (data.size() > 1) model.spread = std::max(1e-3, std::sqrt(squares / static_cast<double>(data.size() - 1)));
  for (std::size_t p = 0; p < space.params.size(); ++p) {
    for (const auto& [config, y] : data) ++model.count[p][config.at(space.params[p].first)];
  }
  // Backfitting: each parameter's effects from the residuals the others leave.
  for (int pass = 0; pass < kBackfitPasses; ++pass) {
    for (std::size_t p = 0; p < space.params.size(); ++p) {
      std::map<std::string, double> residual;
      for (const auto& [config, y] : data) {
        const std::string& value = config.at(space.params[p].first);
        residual[value] += y - model.predict(space, config) + model.effect[p][value];
      }
      for (const auto& [value, r] : residual) model.effect[p][value] = r / (model.count[p][value] + kShrink);
    }
  }
  return model;
}

double annealing_acceptance(std::optional<double> old_cost, std::optional<double> new_cost, double t) {
  if (!old_cost) return 1.0;   // the start failed: always move
  if (!new_cost) return 0.0;   // never move onto a failure once something worked
  if (*new_cost < *old_cost) return 1.0;
  return std::exp(((*old_cost - *new_cost) / *old_cost) / t);
}

double annealing_temperature(int evaluations, int max_evaluations) {
  // Kernel Tuner stretches its schedule over max_fevals when given one (kopt: the budget).
  const int length = max_evaluations > 0 ? max_evaluations : schedule_length();
  const double scale = static_cast<double>(schedule_length()) / length;
  return kStartTemperature * std::pow(kAlpha, scale * evaluations);
}

}  // namespace kopt::loop
