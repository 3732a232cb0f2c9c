// kopt check KERNEL: parse, compile, run on every case and seed, verify. No timing.
#include <fmt/format.h>

#include <iostream>

#include "command.hpp"
#include "common_options.hpp"
#include "kopt/core/error.hpp"
#include "kopt/core/files.hpp"
#include "kopt/report/check_table.hpp"
#include "kopt/verify/check.hpp"

namespace kopt::cli {
namespace {

struct CheckConfig {
  CommonOptions common;
  std::string target = ".";
  std::string spec;
  std::vector<std::string> dims;
  std::vector<std::string> cases;
  std::vector<std::string> defines;
  std::string arch;
  std::string out;
  int seeds = 3;
  std::uint64_t first_seed = 1;
};

int run_check_command(const CheckConfig& config) {
  std::optional<std::filesystem::path> spec_override;
  if (!config.spec.empty()) spec_override = config.spec;
  spec::Problem problem = spec::load_problem(config.target, spec_override, parse_dims(config.dims));
  select_cases(problem, config.cases);

  verify::CheckOptions options{.seed_count = config.seeds, .first_seed = config.first_seed};
  if (!config.arch.empty()) options.arch = config.arch;
  for (const std::string& define : config.defines) options.defines.push_back(parse_define(define));

  SystemProcessRunner runner;
  verify::CheckContext context{runner, cache_dir_of(config.common), worker_settings_of(config.common)};
  verify::CheckReport report = verify::run_check(problem, options, context);

  nlohmann::json document = verify::check_report_to_json(report);
  std::filesystem::path out = config.out.empty() ? problem.spec.kernel.parent_path() / "check.json"
                                                 : std::filesystem::path(config.out);
  write_file_atomic(out, document.dump(2) + "\n");
  if (config.common.json) {
    std::cout << document.dump(2) << "\n";
  } else {
    std::cout << report::format_check_report(report) << fmt::format("  wrote {}\n", out.string());
  }
  return static_cast<int>(report.passed() ? ExitCode::ok : ExitCode::kernel_failed);
}

}  // namespace

Command check_command() {
  return {"check", "Compile the kernel and verify it on every case and seed (no timing)", [](CLI::App& app) {
            auto config = std::make_shared<CheckConfig>();
            app.add_option("KERNEL", config->target, "A .cu file, a folder with kopt.toml, or a kopt.toml (default: .)");
            app.add_option("--spec", config->spec, "Use this kopt.toml for KERNEL");
            app.add_option("--dim", config->dims, "Set a dim in every case: NAME=VALUE (repeatable)");
            app.add_option("--case", config->cases, "Only this case, by name (repeatable)");
            app.add_option("-D,--define", config->defines, "Compile with -DNAME=VALUE (repeatable)");
            app.add_option("--arch", config->arch, "Target, e.g. sm_90a (default: [build] arch, else the GPU's)");
            app.add_option("--seeds", config->seeds, "How many seeds of fresh random inputs per case")
                ->check(CLI::Range(1, 1000));
            app.add_option("--seed", config->first_seed, "The first seed");
            app.add_option("--out", config->out, "Where to write check.json (default: beside the kernel)");
            add_common_options(app, config->common);
            return [config] { return run_check_command(*config); };
          }};
}

}  // namespace kopt::cli
