#pragma once
// Options several commands share, and their conversion into library settings.

#include <CLI/CLI.hpp>

#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "kopt/core/context.hpp"
#include "kopt/core/progress_line.hpp"
#include "kopt/run/worker_launcher.hpp"
#include "kopt/spec/expression.hpp"
#include "kopt/spec/problem_spec.hpp"

namespace kopt::cli {

// Numeric option checks that refuse NaN and infinity (CLI11's PositiveNumber and Range let
// NaN through, and print an unbounded side as a 300-digit number).
CLI::Validator positive_number();                        // finite, > 0
CLI::Validator non_negative_number();                    // finite, >= 0
CLI::Validator number_between(double low, double high);  // finite, low <= x <= high
CLI::Validator unsigned_integer();                       // digits only: no sign, no exponent
// Paths kopt will write, checked before any work (core/files.hpp's check_output_*): a file
// that is new or regular under a writable folder; a folder that is one or can be created.
CLI::Validator output_file();
CLI::Validator output_folder();

struct CommonOptions {
  bool json = false;
  std::string cache_dir;          // empty: default_cache_dir()
  int device = 0;
  double timeout_seconds = 120;
};

void add_common_options(CLI::App& app, CommonOptions& options);

std::filesystem::path cache_dir_of(const CommonOptions& options);
// The worker settings; workers report on progress_line_of(options).
run::WorkerSettings worker_settings_of(const CommonOptions& options);

// The context every command works through: the system's process runner and toolchain (one
// per process, so each tool is looked for once), the cache folder and the progress line.
Context context_of(const CommonOptions& options);

// The live progress line on standard error, one per process: quiet (it draws nothing) with
// --json and when standard error is not a terminal.
ProgressLine* progress_line_of(const CommonOptions& options);

// "N=4096" → ("N", 4096); "alpha=0.5" → ("alpha", 0.5). Throws input_error.
std::pair<std::string, spec::Number> parse_dim(const std::string& text);
spec::Dims parse_dims(const std::vector<std::string>& texts);
// Keeps only the cases named (all when `names` is empty); input_error for an unknown name.
void select_cases(spec::Problem& problem, const std::vector<std::string>& names);

// "BM=128" → ("BM", "128").
std::pair<std::string, std::string> parse_define(const std::string& text);
// Every -D in order; a name given twice takes its last value, as on a compiler's command line,
// so that what is compiled and what kopt reports as switched on cannot disagree.
std::vector<std::pair<std::string, std::string>> parse_defines(const std::vector<std::string>& texts);

}  // namespace kopt::cli
