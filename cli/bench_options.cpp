#include "bench_options.hpp"

#include "kopt/core/files.hpp"
#include "kopt/measure/call_batch.hpp"
#include "kopt/profile/ncu_witness.hpp"

namespace kopt::cli {

void add_bench_options(CLI::App& app, BenchConfig& c) {
  add_problem_options(app, c.problem);
  app.add_option("--mode", c.mode,
                 "cold: flush the L2 before each sample; warm: do not; graph: replay N calls captured in a CUDA "
                 "graph (for kernels of a few microseconds)")
      ->check(CLI::IsMember({"cold", "warm", "graph"}));
  app.add_option("--l2-flush", c.l2_flush,
                 "cold mode: read a buffer of twice the L2's size before each sample (leaves clean lines), or "
                 "write one of its size (as nvbench does; the kernel then pays for writing dirty lines back)")
      ->check(CLI::IsMember({"read", "write"}));
  app.add_option("--max-calls-per-sample", c.max_calls_per_sample,
                 "cold and warm mode: time up to this many calls per sample, each on fresh inputs of its own, so "
                 "that a sample of a short kernel lasts ~50 us (1: one call per sample)")
      ->check(CLI::Range(1, measure::kCallsPerSampleLimit));
  app.add_option("--precision", c.precision_percent,
                 "Stop when the 95% interval of each median is within this many percent of it (default: a "
                 "quarter of --min-effect); a statistical target, not the spec's precision (the arithmetic)")
      ->check(positive_number());
  app.add_option("--min-samples", c.min_samples, "Take at least this many samples")->check(CLI::Range(2, 1000000));
  app.add_option("--min-time", c.min_time, "Accumulate at least this many seconds of GPU time")
      ->check(non_negative_number());
  app.add_option("--max-time", c.max_time, "Stop sampling a case after this many seconds")->check(positive_number());
  app.add_option("--min-effect", c.min_effect_percent, "Smallest difference, in percent, called faster or slower")
      ->check(positive_number());
  app.add_flag("--all-cases", c.all_cases,
               "Time every case (default: only the spec's [dims] case, \"default\"; every case is checked)");
  app.add_flag("--no-reference", c.no_reference,
               "Do not time the reference (a .cu one beside the kernels, a .py one after them)");
  app.add_option("--witness", c.witness,
                 "ncu: after timing, profile each kernel's calls under Nsight Compute (--clock-control none) and "
                 "flag a kernel whose ncu time per call exceeds kopt's beyond the noise (costs seconds per kernel; "
                 "kopt's own clock witnesses every sample either way)")
      ->check(CLI::IsMember({"ncu"}));
  app.add_option("--out", c.out, "Where to write bench.json (default: beside the first kernel)")
      ->check(output_file());
  add_common_options(app, c.common);
}

measure::BenchReport run_bench_from_config(const BenchConfig& c) {
  std::vector<spec::Problem> kernels;
  for (const std::string& target : c.targets) kernels.push_back(load_problem_with(target, c.problem));

  measure::BenchOptions options;
  options.check = check_options_of(c.problem);
  options.settings.mode = measure::timing_mode_from_name(c.mode);
  options.settings.l2_flush = measure::l2_flush_from_name(c.l2_flush);
  options.settings.max_calls_per_sample = c.max_calls_per_sample;
  options.settings.stopping.target_half_width = c.precision_percent > 0
                                                   ? c.precision_percent / 100
                                                   : measure::half_width_for_min_effect(c.min_effect_percent / 100);
  options.settings.stopping.min_samples = c.min_samples;
  options.settings.stopping.min_gpu_seconds = c.min_time;
  options.settings.stopping.timeout_seconds = c.max_time;
  options.comparison.min_effect = c.min_effect_percent / 100;
  options.time_reference = !c.no_reference;
  // --case has already narrowed the problem to the cases it names: time those.
  options.timed_cases = c.all_cases || !c.problem.cases.empty() ? measure::TimedCases::all
                                                                : measure::TimedCases::perf_case;

  SystemProcessRunner runner;
  verify::CheckContext context{runner, cache_dir_of(c.common), worker_settings_of(c.common)};
  measure::BenchReport report = measure::run_bench(kernels, options, context);
  if (c.witness == "ncu" && !report.variants.empty()) profile::add_ncu_witness(report, kernels, options, context);
  std::filesystem::path out = c.out.empty() ? kernels.front().spec.kernel.parent_path() / "bench.json"
                                            : std::filesystem::path(c.out);
  write_file_atomic(out, measure::bench_report_to_json(report).dump(2) + "\n");
  return report;
}

}  // namespace kopt::cli
