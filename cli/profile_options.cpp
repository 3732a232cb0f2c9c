#include "profile_options.hpp"

#include <fmt/format.h>

namespace kopt::cli {

void add_profile_options(CLI::App& app, ProfileConfig& config) {
  app.add_option("KERNEL", config.target, "A .cu file, a folder with kopt.toml, or a kopt.toml (default: .)");
  add_problem_options(app, config.problem);
  app.add_option("--out", config.out, "Folder for the report and the JSON files (default: profile/ beside the kernel)")
      ->check(output_folder());
  app.add_option("--clock-control", config.clock_control,
                 "ncu --clock-control: none (the clocks a normal run sees) or base (locked to base clocks)")
      ->check(CLI::IsMember({"none", "base"}));
  app.add_option("--set", config.section_set, fmt::format("ncu --set: the sections collected (default: {})", config.section_set))
      ->type_name("SET");
  app.add_option("--top", config.top_k, "Metrics ranked per axis in ncu_top.json")->check(CLI::Range(1, 50));
  add_common_options(app, config.common);
}

std::filesystem::path profile_out_dir(const ProfileConfig& config, const spec::Problem& problem) {
  return config.out.empty() ? problem.spec.kernel.parent_path() / "profile" : std::filesystem::path(config.out);
}

profile::ProfileOptions profile_options_of(const ProfileConfig& config, const std::filesystem::path& out_dir) {
  return {.check = check_options_of(config.problem),
          .ncu = {.section_set = config.section_set, .clock_control = config.clock_control},
          .top_k = config.top_k,
          .out_dir = out_dir};
}

ProfileRun run_profile_from_config(const ProfileConfig& config) {
  spec::Problem problem = load_problem_with(config.target, config.problem);
  std::filesystem::path out_dir = profile_out_dir(config, problem);
  Context kopt_context = context_of(config.common);
  verify::CheckContext context{kopt_context.runner, kopt_context.cache_dir, worker_settings_of(config.common)};
  profile::ProfileReport report = profile::run_profile(problem, profile_options_of(config, out_dir), context);
  return {std::move(problem), std::move(out_dir), std::move(report)};
}

ExitCode profile_exit_code(const profile::ProfileReport& report) {
  if (report.kernel_failed()) return ExitCode::kernel_failed;
  if (!report.evidence()) return ExitCode::environment;
  return ExitCode::ok;
}

}  // namespace kopt::cli
