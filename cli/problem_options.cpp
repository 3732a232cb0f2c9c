#include "problem_options.hpp"

#include <fmt/format.h>

#include "common_options.hpp"
#include "suggest.hpp"
#include "kopt/core/error.hpp"
#include "kopt/spec/tool_arguments.hpp"

namespace kopt::cli {

void add_build_options(CLI::App& app, ProblemOptions& o) {
  app.add_option("--spec", o.spec, "Use this kopt.toml for every KERNEL");
  app.add_option("--dim", o.dims, "Set a dim in every case: NAME=VALUE (repeatable)");
  app.add_option("-D,--define", o.defines, "Compile with -DNAME=VALUE (repeatable)");
  app.add_option("--arch", o.arch, "Target, e.g. sm_90a (default: [build] arch, else the GPU's)");
  // The seed's task folders are sized as --M=4096 --N=4096: options no one declares.
  app.allow_extras();
  app.parse_complete_callback([&app, &o] { o.extras = app.remaining(); });
  o.command = &app;
}

void add_problem_options(CLI::App& app, ProblemOptions& o) {
  add_build_options(app, o);
  app.add_option("--case", o.cases, "Only this case, by name (repeatable)");
  app.add_option("--seeds", o.seeds, fmt::format("How many seeds of fresh random inputs per case (default: {})", o.seeds))
      ->check(CLI::Range(1, 1000));
  app.add_option("--seed", o.first_seed,
                 "The first seed (1 to 2^53), to repeat a run (default: secret random seeds, recorded in the output)")
      ->type_name("N")
      ->check(unsigned_integer())
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1} << 53));
  app.add_flag("--strict", o.strict, "Fail when the source audit finds anything (docs/integrity.md)");
}

namespace {

// --NAME=VALUE, the seed benchmark's spelling of --dim NAME=VALUE; anything else is a typo or
// an argument too many.
std::vector<std::string> dims_written_as_options(const std::vector<std::string>& extras, const CLI::App* command) {
  std::vector<std::string> dims;
  for (const std::string& extra : extras) {
    if (!extra.starts_with("--") || extra.find('=') == std::string::npos) {
      if (command == nullptr) throw input_error("{}: not an option of this command", extra);
      throw input_error("{} (a size is --NAME=VALUE or --dim NAME=VALUE)", unexpected_argument(*command, extra));
    }
    dims.push_back(extra.substr(2));
  }
  return dims;
}

}  // namespace

spec::Problem load_problem_with(const std::string& target, const ProblemOptions& o) {
  std::optional<std::filesystem::path> spec_override;
  if (!o.spec.empty()) spec_override = o.spec;
  std::vector<std::string> dims = dims_written_as_options(o.extras, o.command);
  dims.insert(dims.end(), o.dims.begin(), o.dims.end());  // --dim last: it wins over --NAME=
  spec::Problem problem = spec::load_problem(target, spec_override, parse_dims(dims));
  select_cases(problem, o.cases);
  return problem;
}

verify::CheckOptions check_options_of(const ProblemOptions& o) {
  verify::CheckOptions options{.seed_count = o.seeds, .first_seed = o.first_seed, .strict = o.strict};
  if (!o.arch.empty()) {
    spec::check_arch(o.arch, "--arch");
    options.arch = o.arch;
  }
  options.defines = parse_defines(o.defines);
  return options;
}

}  // namespace kopt::cli
