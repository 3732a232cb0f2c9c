// kopt sass KERNEL [--vs OTHER]: the machine code of the kernel's own functions (instruction mix, access
// widths, resources); with --vs, the opcode differences. The work is sass::problem_sass, as in the loop.
#include <fmt/format.h>

#include <iostream>

#include "command.hpp"
#include "common_options.hpp"
#include "kopt/catalog/method_evidence.hpp"
#include "kopt/core/error.hpp"
#include "kopt/core/files.hpp"
#include "kopt/report/sass_table.hpp"
#include "kopt/sass/kernel_sass.hpp"
#include "problem_options.hpp"

namespace kopt::cli {
namespace {

struct SassConfig {
  CommonOptions common;
  ProblemOptions problem;
  std::string target = ".";
  std::string vs;
  std::string out;
  std::vector<std::string> methods;  // --method: check these signatures too
};

std::optional<sass::KernelSass> disassembled(const std::string& target, const SassConfig& config, Context& context) {
  const spec::Problem problem = load_problem_with(target, config.problem);
  const auto arch = config.problem.arch.empty() ? std::nullopt : std::optional(config.problem.arch);
  sass::KernelSassOutcome outcome =
      sass::problem_sass(context, problem, check_options_of(config.problem).defines, arch, worker_settings_of(config.common));
  if (!outcome.ok()) std::cerr << fmt::format("FAIL: {} {}\n", problem.spec.kernel.filename().string(), outcome.failure);
  return std::move(outcome.sass);
}

int run_sass_command(const SassConfig& config) {
  catalog::require_known_methods(config.methods);  // a mistyped --method, before compiling anything
  Context context = context_of(config.common);
  const std::optional<sass::KernelSass> a = disassembled(config.target, config, context);
  const std::optional<sass::KernelSass> b = config.vs.empty() ? std::nullopt : disassembled(config.vs, config, context);
  if (!a || (!config.vs.empty() && !b)) return static_cast<int>(ExitCode::kernel_failed);
  const report::SassReport out = report::sass_report(
      {config.target, *a},
      catalog::check_kernel_methods(a->kernel, config.methods, check_options_of(config.problem).defines,
                                    a->profile.functions, catalog::arch_number(a->arch)),
      b ? std::optional<report::NamedSass>({config.vs, *b}) : std::nullopt);
  const std::filesystem::path file = config.out.empty() ? a->kernel.parent_path() / "sass.json" : std::filesystem::path(config.out);
  write_file_atomic(file, out.document.dump(2) + "\n");
  std::cout << (config.common.json ? out.document.dump(2) + "\n" : out.text + fmt::format("  wrote {}\n", file.string()));
  return static_cast<int>(ExitCode::ok);
}

}  // namespace

Command sass_command() {
  return {"sass", "Show the kernel's machine code: instruction mix, access widths, resources", [](CLI::App& app) {
            auto config = std::make_shared<SassConfig>();
            app.add_option("KERNEL", config->target, "A .cu file, a folder with kopt.toml, or a kopt.toml (default: .)");
            app.add_option("--vs", config->vs, "Another kernel to compare opcode counts with");
            app.add_option("--out", config->out, "Where to write sass.json (default: beside the kernel)")->check(output_file());
            app.add_option("--method", config->methods, "Also look for this catalog method's SASS signature (repeatable)");
            add_build_options(app, config->problem);
            add_common_options(app, config->common);
            return [config] { return run_sass_command(*config); };
          }};
}

}  // namespace kopt::cli
