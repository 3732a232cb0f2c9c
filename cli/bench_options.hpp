#pragma once
// Options shared by `kopt bench` and `kopt compare`, and the run they lead to.

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "common_options.hpp"
#include "problem_options.hpp"
#include "kopt/measure/bench.hpp"

namespace kopt::cli {

struct BenchConfig {
  CommonOptions common;
  ProblemOptions problem;
  std::vector<std::string> targets;
  std::string out;
  std::string mode = "cold";
  std::string l2_flush = "read";
  double precision_percent = 0;  // 0: a quarter of --min-effect (kHalfWidthPerMinEffect)
  std::size_t min_samples = 10;
  double min_time = 0.01;
  double max_time = 15;
  double min_effect_percent = 1.0;
  bool no_reference = false;
  bool all_cases = false;        // time every case, not only the perf case
  int max_calls_per_sample = 64; // measure::kDefaultMaxCallsPerSample
};

void add_bench_options(CLI::App& app, BenchConfig& config);

// Loads the kernels, checks and times them, writes bench.json; returns the report.
measure::BenchReport run_bench_from_config(const BenchConfig& config);

}  // namespace kopt::cli
