#pragma once
// The built-in branch generator, for kernels that declare tunable parameters ([tune] in the
// spec, or `kopt:param` in the source) and method switches (`kopt:method`): K configurations
// per iteration by a search over the declared space under its restrictions — random at the
// start, then mostly the neighbours of the champion (one or two parameters moved one step
// through their declared values), with a quarter of the branches kept random so that a local
// optimum does not end the search. No configuration is proposed twice in one run.

#include <cstdint>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "kopt/loop/run_state.hpp"
#include "kopt/spec/expression.hpp"
#include "kopt/spec/kernel_signature.hpp"
#include "kopt/spec/problem_spec.hpp"

namespace kopt::loop {

struct SearchSpace {
  std::vector<std::pair<std::string, std::vector<std::string>>> params;  // name → values, in order
  std::vector<spec::Expression> restrictions;
  std::vector<spec::MethodSwitch> switches;
  Defines defaults;  // each parameter's value in the source (else its first value)
  // Non-empty when the parameters were discovered and some need a source rewrite: the kernel
  // with them made settable by -D (discover/settable_source.hpp), which every branch compiles.
  std::string rewritten_source;

  bool empty() const { return params.empty(); }
  // The configuration `defines` (parameters not named take their defaults) satisfies every
  // restriction. Throws input_error when a restriction cannot be evaluated.
  bool allows(const Defines& defines) const;
  // Only the parameters' values, all of them: the identity of a configuration.
  Defines configuration(const Defines& defines) const;
};

// Each parameter's value drawn uniformly from its list (restrictions not applied).
Defines random_configuration(const SearchSpace& space, std::mt19937_64& rng);

// Where `value` is in a parameter's `values` (0 when absent: a default outside the list).
std::size_t index_of(const std::vector<std::string>& values, const std::string& value);

// [tune] where the spec has it, else the source's kopt:param declarations.
SearchSpace search_space(const spec::ProblemSpec& problem, const spec::SourceAnnotations& annotations);

// The search space of `kernel` (under `spec`, when given); input_error when it declares no
// tunable parameter. optimize asks before it creates a run folder.
SearchSpace tunable_space(const std::filesystem::path& kernel, const std::optional<std::filesystem::path>& spec);

struct Proposal {
  std::vector<Defines> configurations;  // full parameter assignments
  std::vector<std::string> kinds;       // "random" | "neighbour", per configuration
};

// Up to `count` allowed configurations not in `tried`: around `centre` when `local`, else at
// random. Deterministic for one `seed`.
Proposal propose_configurations(const SearchSpace& space, const Defines& centre, const std::set<Defines>& tried,
                                int count, bool local, std::uint64_t seed);

struct TunerRequest {
  std::uint64_t seed = 1;
  std::string strategy = "auto";  // search_strategy.hpp: auto | random | local | model | annealing
  int budget_evaluations = 0;     // branches the run can afford (auto's choice, annealing's schedule)
};

// Writes iteration `i`'s branches (variant.json per branch: the best kernel with a proposed
// configuration, and the plan's methods switched on where the kernel has their switches) and
// methods.json, by the request's strategy from every branch measured before. Returns how many
// branches were written (0: the space is exhausted).
int write_tuner_branches(const RunFolder& run, const RunState& state, const TunerRequest& request);

}  // namespace kopt::loop
