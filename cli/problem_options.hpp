#pragma once
// The options that say which problem and how to check it, shared by check, bench and compare.

#include <CLI/CLI.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "kopt/spec/problem_spec.hpp"
#include "kopt/verify/check.hpp"

namespace kopt::cli {

struct ProblemOptions {
  std::string spec;                  // --spec: one kopt.toml for every KERNEL
  std::vector<std::string> dims;     // --dim NAME=VALUE
  std::vector<std::string> extras;   // what no option took: the seed's --NAME=VALUE sizes
  std::vector<std::string> cases;    // --case NAME
  std::vector<std::string> defines;  // -D NAME=VALUE
  std::string arch;
  int seeds = 3;
  std::uint64_t first_seed = 0;  // 0: secret random seeds
  bool strict = false;
  const CLI::App* command = nullptr;  // the command they were given to: it names a mistyped option
};

// --spec, --dim, -D, --arch (and the seed's --NAME=VALUE sizes): what compiling needs.
void add_build_options(CLI::App& app, ProblemOptions& options);
// add_build_options, and what running and checking need: --case, --seeds, --seed, --strict.
void add_problem_options(CLI::App& app, ProblemOptions& options);

// Loads KERNEL (a .cu, a folder with kopt.toml, or a kopt.toml) with the options applied.
spec::Problem load_problem_with(const std::string& target, const ProblemOptions& options);

verify::CheckOptions check_options_of(const ProblemOptions& options);

}  // namespace kopt::cli
