// kopt tune-space KERNEL [--save]: the parameters an unannotated kernel could be tuned by,
// found in its source (no GPU), and the compile-options axis; --save writes those -D can set
// as [tune] into the problem's kopt.toml.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <iostream>

#include "command.hpp"
#include "kopt/core/files.hpp"
#include "kopt/discover/launch_limits.hpp"
#include "kopt/discover/settable_source.hpp"
#include "kopt/discover/tune_space.hpp"
#include "kopt/spec/problem_spec.hpp"

namespace kopt::cli {
namespace {
namespace fs = std::filesystem;

struct TuneSpaceConfig {
  std::string target = ".";
  bool save = false;
};

std::string candidate_line(const discover::Candidate& candidate) {
  return fmt::format("  {:<28} {:>6}  line {:<4} {:<48} {}: {}\n", candidate.name, candidate.value, candidate.line,
                     discover::kind_text(candidate.kind), candidate.ladder, fmt::join(candidate.proposed, ", "));
}

std::string compile_option_line(const discover::CompileOption& option) {
  return fmt::format("  {:<32} {}{}\n", fmt::format("{}", fmt::join(option.flags, " ")), option.why,
                     option.tolerance_dependent ? " (tolerance-dependent: kept only where every case stays within "
                                                  "tolerance)"
                                                : "");
}

int run_tune_space_command(const TuneSpaceConfig& config) {
  const spec::ProblemSpec problem = spec::locate_problem(config.target);
  const discover::TuneSpace space = discover::discover_tune_space(problem.kernel);
  std::string out = fmt::format("tune space of {}: {} candidate(s)\n", problem.kernel.filename().string(),
                                space.candidates.size());
  for (const discover::Candidate& candidate : space.candidates) out += candidate_line(candidate);
  if (!space.declared.empty()) out += fmt::format("  already declared (kopt:param): {}\n", fmt::join(space.declared, ", "));
  out += discover::restrictions_text(discover::discovered_restrictions(read_file(problem.kernel), problem.kernel.string()));
  out += "compile options (each tried alone):\n";
  for (const discover::CompileOption& option : space.compile_options) out += compile_option_line(option);
  out += discover::search_verdict(space);
  if (config.save) {
    const fs::path spec_file = problem.spec_file.value_or(problem.kernel.parent_path() / "kopt.toml");
    discover::save_tune_table(space, spec_file);
    out += fmt::format("wrote [tune] into {}\n", spec_file.string());
  }
  std::cout << out;
  return 0;
}

}  // namespace

Command tune_space_command() {
  return {"tune-space", "The parameters an unannotated kernel could be tuned by (no GPU); --save writes [tune]",
          [](CLI::App& app) {
            auto config = std::make_shared<TuneSpaceConfig>();
            app.add_option("KERNEL", config->target, "A .cu file, a folder with kopt.toml, or a kopt.toml (default: .)");
            app.add_flag("--save", config->save, "Write the parameters -D can set as [tune] into the problem's kopt.toml");
            return [config] { return run_tune_space_command(*config); };
          }};
}

}  // namespace kopt::cli
