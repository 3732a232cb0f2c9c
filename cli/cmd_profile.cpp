// kopt profile KERNEL: Nsight Compute on exactly the kernels one solve call launches.
// Writes profile.ncu-rep, raw.csv, profile.json and ncu_top.json into --out.
#include <fmt/format.h>

#include <iostream>

#include "command.hpp"
#include "profile_options.hpp"
#include "kopt/core/error.hpp"
#include "kopt/report/profile_table.hpp"

namespace kopt::cli {
namespace {

int run_profile_command(const ProfileConfig& config) {
  ProfileRun run = run_profile_from_config(config);
  const profile::ProfileReport& report = run.report;
  profile::write_profile_files(report, run.out_dir);
  if (config.common.json) {
    std::cout << profile::profile_report_to_json(report).dump(2) << "\n";
  } else {
    std::cout << report::format_profile_report(report) << fmt::format("  wrote {}\n", run.out_dir.string());
  }
  return static_cast<int>(profile_exit_code(report));
}

}  // namespace

Command profile_command() {
  return {"profile", "Profile the kernels of one solve call with Nsight Compute; rank what is furthest from good",
          [](CLI::App& app) {
            auto config = std::make_shared<ProfileConfig>();
            add_profile_options(app, *config);
            return [config] { return run_profile_command(*config); };
          }};
}

}  // namespace kopt::cli
