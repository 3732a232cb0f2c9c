#include "kopt/export/export_target.hpp"

#include <algorithm>

#include "kopt/core/error.hpp"
#include "kopt/core/file_queries.hpp"
#include "kopt/discover/tune_space.hpp"
#include "kopt/loop/run_state.hpp"

namespace kopt::exporting {
namespace {

namespace fs = std::filesystem;

// The arch the run's checks compiled for; a simulated run (or one before env.json) has none.
std::string recorded_arch(const loop::RunFolder& run) {
  const fs::path env = run.root() / "env.json";
  if (!path_exists(env)) return "";
  const nlohmann::json document = loop::read_json(env);
  const auto arch = document.find("arch");
  return arch != document.end() && arch->is_string() ? arch->get<std::string>() : "";
}

// The champion's defines with the command line's laid over them, name by name.
std::vector<std::pair<std::string, std::string>> laid_over(loop::Defines defines,
                                                           const std::vector<std::pair<std::string, std::string>>& over) {
  for (const auto& [name, value] : over) defines[name] = value;
  return {defines.begin(), defines.end()};
}

ExportTarget run_champion(const loop::RunFolder& run, const std::vector<std::pair<std::string, std::string>>& defines) {
  const loop::RunState state = run.load();
  loop::require_inputs(state);
  const loop::Variant champion = run.resolved(state.best);
  if (!path_exists(champion.kernel)) {
    throw input_error("{}: the run's champion ({}) is missing", champion.kernel.string(), champion.label);
  }
  ExportTarget target{.kernel = champion.kernel, .spec = state.spec, .dims = state.dims,
                      .defines = laid_over(champion.defines, defines), .flags = {},
                      .recorded_arch = recorded_arch(run), .run = run.root(), .variant = champion.label};
  // As the run's lab built it: the original's folder for the headers a copy includes, and the
  // nvcc options the tuner's compile-option axis chose (loop/gpu_lab.cpp).
  target.flags.push_back("-I" + state.kernel.parent_path().string());
  for (std::string& flag : discover::compile_option_flags(champion.defines)) target.flags.push_back(std::move(flag));
  return target;
}

}  // namespace

ExportTarget export_target(const fs::path& target, const std::optional<fs::path>& spec_override,
                           const std::vector<std::pair<std::string, std::string>>& defines) {
  const loop::RunFolder run(target);
  if (is_folder(target) && run.exists()) {
    if (spec_override) {
      throw input_error("--spec with a run folder ({}): its champion is exported with the run's own spec", target.string());
    }
    return run_champion(run, defines);
  }
  return ExportTarget{.kernel = target, .spec = spec_override, .defines = laid_over({}, defines)};
}

}  // namespace kopt::exporting
