#pragma once
// Options shared by `kopt profile` and `kopt roofline`, and the profile run they lead to.

#include <CLI/CLI.hpp>

#include <filesystem>
#include <string>

#include "common_options.hpp"
#include "problem_options.hpp"
#include "kopt/core/error.hpp"
#include "kopt/profile/profiler.hpp"
#include "kopt/spec/problem_spec.hpp"

namespace kopt::cli {

struct ProfileConfig {
  CommonOptions common;
  ProblemOptions problem;
  std::string target = ".";
  std::string out;                    // default: profile/ beside the kernel
  std::string clock_control = "none";
  std::string section_set = "full";
  int top_k = profile::kDefaultTopK;
};

void add_profile_options(CLI::App& app, ProfileConfig& config);

struct ProfileRun {
  spec::Problem problem;
  std::filesystem::path out_dir;
  profile::ProfileReport report;
};

ProfileRun run_profile_from_config(const ProfileConfig& config);

// The profile's settings from the options, its files going to `out_dir`.
profile::ProfileOptions profile_options_of(const ProfileConfig& config, const std::filesystem::path& out_dir);
// --out, else profile/ beside the kernel.
std::filesystem::path profile_out_dir(const ProfileConfig& config, const spec::Problem& problem);

// 1 when the kernel failed its check or under the profiler, 3 when the profile is degraded.
ExitCode profile_exit_code(const profile::ProfileReport& report);

}  // namespace kopt::cli
