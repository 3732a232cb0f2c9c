#include "kopt/loop/tuner.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "kopt/core/error.hpp"
#include "kopt/core/file_queries.hpp"
#include "kopt/core/files.hpp"
#include "kopt/discover/launch_limits.hpp"
#include "kopt/discover/settable_source.hpp"
#include "kopt/discover/triton_autotune.hpp"
#include "kopt/discover/triton_launch.hpp"
#include "kopt/discover/tune_space.hpp"
#include "kopt/loop/search_strategy.hpp"
#include "kopt/spec/python_kernel.hpp"

namespace kopt::loop {
namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

spec::Number number_of(const std::string& text) {
  try {
    std::size_t used = 0;
    const long long integer = std::stoll(text, &used);
    if (used == text.size()) return static_cast<std::int64_t>(integer);
    const double real = std::stod(text, &used);
    if (used == text.size()) return real;
  } catch (const std::exception&) {
  }
  throw input_error("tune value \"{}\" is not a number: restrictions cannot use it", text);
}

// Every configuration one or two parameters away from `centre`, each moved one step.
std::vector<Defines> neighbours(const SearchSpace& space, const Defines& centre) {
  std::vector<Defines> out;
  auto moved = [&](Defines config, std::size_t p, int step) -> std::optional<Defines> {
    const auto& [name, values] = space.params[p];
    const long index = static_cast<long>(index_of(values, config[name])) + step;
    if (index < 0 || index >= static_cast<long>(values.size())) return std::nullopt;
    config[name] = values[static_cast<std::size_t>(index)];
    return config;
  };
  for (std::size_t p = 0; p < space.params.size(); ++p) {
    for (int step : {-1, 1}) {
      if (auto one = moved(centre, p, step)) {
        out.push_back(*one);
        for (std::size_t q = p + 1; q < space.params.size(); ++q) {
          for (int step2 : {-1, 1}) {
            if (auto two = moved(*one, q, step2)) out.push_back(*two);
          }
        }
      }
    }
  }
  return out;
}

}  // namespace

Defines random_configuration(const SearchSpace& space, std::mt19937_64& rng) {
  Defines config;
  for (const auto& [name, values] : space.params) {
    std::uniform_int_distribution<std::size_t> pick(0, values.size() - 1);
    config[name] = values[pick(rng)];
  }
  return config;
}

std::size_t index_of(const std::vector<std::string>& values, const std::string& value) {
  const auto found = std::ranges::find(values, value);
  return found == values.end() ? 0 : static_cast<std::size_t>(found - values.begin());
}

bool SearchSpace::allows(const Defines& defines) const {
  spec::Dims dims;
  for (const auto& [name, value] : configuration(defines)) dims[name] = number_of(value);
  return std::ranges::all_of(restrictions, [&](const spec::Expression& r) { return spec::to_double(r.evaluate(dims)) != 0; });
}

Defines SearchSpace::configuration(const Defines& defines) const {
  Defines config;
  for (const auto& [name, values] : params) {
    const auto set = defines.find(name);
    config[name] = set != defines.end() ? set->second : defaults.at(name);
  }
  return config;
}

SearchSpace search_space(const spec::ProblemSpec& problem, const spec::SourceAnnotations& annotations) {
  SearchSpace space;
  space.switches = annotations.methods;
  space.restrictions = problem.tune.restrictions;
  if (!problem.tune.params.empty()) {
    space.params = problem.tune.params;
  } else {
    for (const spec::TunableParam& p : annotations.params) space.params.emplace_back(p.macro, p.values);
  }
  for (const auto& [name, values] : space.params) {
    if (values.empty()) throw input_error("tune parameter {} has no values", name);
    const auto declared = std::ranges::find(annotations.params, name, &spec::TunableParam::macro);
    space.defaults[name] = declared != annotations.params.end() ? declared->default_value : values.front();
  }
  return space;
}

Proposal propose_configurations(const SearchSpace& space, const Defines& centre, const std::set<Defines>& tried,
                                int count, bool local, std::uint64_t seed) {
  Proposal proposal;
  std::mt19937_64 rng(seed);
  std::set<Defines> taken = tried;
  auto take = [&](const Defines& config, const char* kind) {
    if (static_cast<int>(proposal.configurations.size()) >= count || taken.contains(config) || !space.allows(config)) return;
    taken.insert(config);
    proposal.configurations.push_back(config);
    proposal.kinds.emplace_back(kind);
  };
  if (local) {
    std::vector<Defines> around = neighbours(space, space.configuration(centre));
    std::ranges::shuffle(around, rng);
    const int local_share = count - count / 4;  // a quarter stays random
    for (const Defines& config : around) {
      if (static_cast<int>(proposal.configurations.size()) >= local_share) break;
      take(config, "neighbour");
    }
  }
  for (int attempt = 0; attempt < 20000 && static_cast<int>(proposal.configurations.size()) < count; ++attempt) {
    take(random_configuration(space, rng), "random");
  }
  return proposal;
}

namespace {

// Every branch of the iterations before the current one, in order, with its time: the full
// screen's median, else the first look's; none when it failed or was not measured. The current
// one's branches are being written (or were, by a kopt killed before methods.json), and counting
// them would change what a resumed run proposes.
std::vector<Observation> observed_configurations(const RunFolder& run, const RunState& state, const SearchSpace& space) {
  std::vector<Observation> observed;
  for (int i = 1; i < state.current; ++i) {
    for (const std::string& name : branch_names(run, i)) {
      const fs::path dir = run.branches(i) / name;
      if (!path_exists(dir / "variant.json")) continue;
      Observation o{.configuration = space.configuration(read_json(dir / "variant.json").value("defines", Defines{}))};
      if (path_exists(dir / "bench.json")) {
        const json outcome = read_json(dir / "bench.json");
        if (outcome.value("passed", false)) o.seconds = outcome.at("median_s").get<double>();
      }
      observed.push_back(std::move(o));
    }
  }
  return observed;
}

std::vector<std::string> planned_methods(const fs::path& plan_file) {
  std::vector<std::string> ids;
  if (!path_exists(plan_file)) return ids;
  const json axes = read_json(plan_file).value("axes", json::object());
  for (const auto& [name, axis] : axes.items()) {
    for (const json& chosen : axis.value("chosen", json::array())) ids.push_back(chosen.at("id"));
  }
  return ids;
}

// A kernel that declares nothing is searched over every constant kopt tune-space finds, with
// the values it proposes: those -D cannot set yet are made settable in a rewritten copy of the
// kernel (docs/guide.md). What the source says a launch needs (discover/launch_limits.hpp)
// restricts them, so that no configuration that cannot run costs a compile or GPU time.
void add_discovered_params(SearchSpace& space, const fs::path& kernel) {
  const std::string source = read_file(kernel);
  const std::string settable = discover::settable_source(source, discover::discover_tune_space_in(source, kernel.string()));
  if (settable != source) space.rewritten_source = settable;
  for (const discover::Candidate& candidate : discover::discover_tune_space_in(settable, kernel.string()).candidates) {
    if (!candidate.settable_by_define()) continue;
    std::vector<std::string> values;
    for (long long value : candidate.proposed) values.push_back(std::to_string(value));
    space.params.emplace_back(candidate.name, std::move(values));
    space.defaults[candidate.name] = std::to_string(candidate.value);
  }
  for (const discover::LaunchRestriction& restriction : discover::discovered_restrictions(source, kernel.string())) {
    space.restrictions.push_back(spec::Expression::parse(restriction.expression));
  }
  // The compile-options axis, beside parameters found: alone it would be a search of nvcc, not
  // of the kernel, and "nothing to search" must still come before any GPU time.
  if (space.params.empty()) return;
  const std::size_t searched = discover::searched_compile_options().size();
  std::vector<std::string> options{"0"};
  for (std::size_t i = 1; i <= searched; ++i) options.push_back(std::to_string(i));
  space.params.emplace_back(discover::kCompileOptionMacro, std::move(options));
  space.defaults[discover::kCompileOptionMacro] = "0";
}

// One parameter per autotuned kernel: "all" (the baseline: Triton's own choice) and each config.
void add_autotuned_params(SearchSpace& space, const fs::path& kernel) {
  for (const discover::AutotunedKernel& autotuned : discover::triton_autotuned_kernels(kernel)) {
    space.params.emplace_back(autotuned.parameter(), autotuned.values());
    space.defaults[autotuned.parameter()] = "all";
  }
}

// What a Triton kernel.py passes where it launches its kernels (discover/triton_launch.hpp): a
// module-level variable as it is, a literal through a rewritten copy of kernel.py.
void add_triton_launch_params(SearchSpace& space, const fs::path& kernel) {
  discover::TritonLaunchSpace found = discover::triton_launch_space(kernel);
  space.params = std::move(found.params);
  space.defaults = std::move(found.defaults);
  space.rewritten_source = std::move(found.rewritten_source);
}

}  // namespace

SearchSpace tunable_space(const fs::path& kernel, const std::optional<fs::path>& spec) {
  const spec::ProblemSpec problem = spec::locate_problem(kernel, spec);
  SearchSpace space = search_space(problem, spec::parse_source_annotations(read_file(kernel), kernel.string()));
  // Without [tune] or annotations: a Triton kernel's space is its @triton.autotune lists (kopt
  // tune-space's rules are CUDA C++'s), a CUDA kernel's what kopt tune-space finds.
  const bool triton = spec::is_python_kernel(kernel);
  if (space.empty()) triton ? add_autotuned_params(space, kernel) : add_discovered_params(space, kernel);
  if (space.empty() && triton) add_triton_launch_params(space, kernel);
  if (space.empty() && triton) {
    throw input_error("{}: a Triton kernel declares its tunable parameters in [tune] of its spec (module-level "
                      "variables of kernel.py, set by -D: docs/triton.md), as @triton.autotune config lists, or as "
                      "power-of-two constants, num_warps or num_stages where it launches a kernel, and this one has "
                      "none of them; the built-in tuner has nothing to search; use --generator CMD",
                      kernel.string());
  }
  if (space.empty()) {
    throw input_error("{}: declares no tunable parameters ([tune] or kopt:param) and kopt tune-space finds no constant "
                      "to search (a #define, a constexpr or a launch literal with a proposed ladder): the built-in "
                      "tuner has nothing to search; use --generator CMD",
                      kernel.string());
  }
  return space;
}

int write_tuner_branches(const RunFolder& run, const RunState& state, const TunerRequest& request) {
  const fs::path kernel = run.absolute(state.best.kernel);
  const SearchSpace space = tunable_space(kernel, state.spec);
  const int i = state.current;
  // Branches a killed write left behind are replaced, not added to.
  remove_folder(run.branches(i));
  SearchRequest search{.centre = space.configuration(state.best.defines),
                       .observed = observed_configurations(run, state, space),
                       .count = state.settings.branches,
                       .iteration = i,
                       .budget_evaluations = request.budget_evaluations,
                       .seed = request.seed};
  search.tried = {space.configuration(state.baseline.defines), search.centre};
  for (const Observation& o : search.observed) search.tried.insert(o.configuration);
  const Strategy strategy = resolve_strategy(parse_strategy(request.strategy), space, request.budget_evaluations);
  const Proposal proposal = propose_by_strategy(strategy, space, search);
  // The plan's methods, where the kernel has a switch for them, are switched on in every branch.
  std::vector<std::string> methods;
  Defines switched;
  for (const std::string& id : planned_methods(run.iteration(i) / "plan.json")) {
    const auto sw = std::ranges::find(space.switches, id, &spec::MethodSwitch::method_id);
    if (sw == space.switches.end()) continue;
    methods.push_back(id);
    switched[sw->macro] = "1";
  }
  for (std::size_t k = 0; k < proposal.configurations.size(); ++k) {
    Defines defines = state.best.defines;
    for (const auto& [name, value] : proposal.configurations[k]) defines[name] = value;
    for (const auto& [name, value] : switched) defines[name] = value;
    const fs::path branch = run.branches(i) / fmt::format("b{}", k + 1);
    if (!space.rewritten_source.empty()) write_file_atomic(branch / kernel_file_like(kernel), space.rewritten_source);
    write_json(branch / "variant.json",
               {{"defines", defines}, {"generator", "kopt tuner"}, {"kind", proposal.kinds[k]},
                {"strategy", strategy_name(strategy)}});
  }
  write_json(run.iteration(i) / "methods.json", {{"methods", methods}, {"generator", "kopt tuner"}});
  return static_cast<int>(proposal.configurations.size());
}

}  // namespace kopt::loop
