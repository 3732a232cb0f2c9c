// kopt check KERNEL: parse, compile, run on every case and seed, verify. No timing.
#include <fmt/format.h>

#include <iostream>

#include "command.hpp"
#include "common_options.hpp"
#include "problem_options.hpp"
#include "kopt/core/error.hpp"
#include "kopt/core/files.hpp"
#include "kopt/report/check_table.hpp"
#include "kopt/verify/check.hpp"

namespace kopt::cli {
namespace {

struct CheckConfig {
  CommonOptions common;
  ProblemOptions problem;
  std::string target = ".";
  std::string out;
  bool sanitize = false;
};

int run_check_command(const CheckConfig& config) {
  spec::Problem problem = load_problem_with(config.target, config.problem);
  verify::CheckOptions options = check_options_of(config.problem);
  options.sanitize = config.sanitize;

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
            add_problem_options(app, config->problem);
            app.add_option("--out", config->out, "Where to write check.json (default: beside the kernel)")
                ->check(output_file());
            app.add_flag("--sanitize", config->sanitize,
                         "Also run compute-sanitizer's memcheck, racecheck and initcheck on the smallest case");
            add_common_options(app, config->common);
            return [config] { return run_check_command(*config); };
          }};
}

}  // namespace kopt::cli
