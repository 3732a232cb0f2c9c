// kopt tune-space KERNEL [--save]: the parameters an unannotated kernel could be tuned by,
// found in its source (no GPU), and the compile-options axis; --save writes those -D can set
// as [tune] into the problem's kopt.toml.
#include <fmt/format.h>

#include <iostream>

#include "command.hpp"
#include "kopt/core/error.hpp"
#include "kopt/core/files.hpp"
#include "kopt/discover/launch_limits.hpp"
#include "kopt/discover/settable_source.hpp"
#include "kopt/discover/triton_autotune.hpp"
#include "kopt/discover/triton_launch.hpp"
#include "kopt/discover/tune_space.hpp"
#include "kopt/report/tune_space_table.hpp"
#include "kopt/spec/problem_spec.hpp"
#include "kopt/spec/python_kernel.hpp"

namespace kopt::cli {
namespace {
namespace fs = std::filesystem;

struct TuneSpaceConfig {
  std::string target = ".";
  bool save = false;
};

int run_triton_tune_space(const spec::ProblemSpec& problem, const TuneSpaceConfig& config) {
  const std::vector<discover::AutotunedKernel> kernels = discover::triton_autotuned_kernels(problem.kernel);
  std::string out =
      kernels.empty()
          ? report::format_triton_launch_space(problem.kernel.filename().string(), discover::triton_launch_space(problem.kernel))
          : "";
  if (out.empty()) out = discover::format_autotune_space(problem.kernel.filename().string(), kernels);
  if (config.save) {
    if (kernels.empty()) {
      throw input_error("nothing to save: {} has no @triton.autotune config list (kopt optimize searches its launch "
                        "constants by itself)", problem.kernel.string());
    }
    const fs::path spec_file = problem.spec_file.value_or(problem.kernel.parent_path() / "kopt.toml");
    discover::append_tune_table(discover::autotune_tune_table(kernels), spec_file);
    out += fmt::format("wrote [tune] into {}\n", spec_file.string());
  }
  std::cout << out;
  return 0;
}

int run_tune_space_command(const TuneSpaceConfig& config) {
  const spec::ProblemSpec problem = spec::locate_problem(config.target);
  // Its rules are CUDA C++'s (macros, constexprs, launch literals, nvcc options): a Triton
  // kernel's own search space is its @triton.autotune lists.
  if (spec::is_python_kernel(problem.kernel)) return run_triton_tune_space(problem, config);
  const discover::TuneSpace space = discover::discover_tune_space(problem.kernel);
  std::string out = report::format_tune_space(
      problem.kernel.filename().string(), space,
      discover::discovered_restrictions(read_file(problem.kernel), problem.kernel.string()));
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
