#include "kopt/profile/ncu_witness.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "kopt/core/error.hpp"
#include "kopt/core/file_queries.hpp"
#include "kopt/core/files.hpp"
#include "kopt/measure/statistics.hpp"
#include "kopt/measure/witness_file.hpp"
#include "kopt/profile/nsight_compute.hpp"
#include "kopt/profile/profile_job.hpp"
#include "kopt/run/worker_launcher.hpp"
#include "kopt/run/gpu_lock.hpp"
#include "kopt/spec/toml.hpp"

namespace kopt::profile {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

using measure::kWitnessFile;
// Before the profiled calls, outside the range: module loading and first-touch costs stay out.
constexpr int kWarmupCalls = 2;

NcuWitnessRule load_ncu_rule() {
  const toml::table ncu = measure::witness_section("ncu");
  const std::optional<double> fraction = ncu["noise_fraction"].value<double>();
  const std::optional<double> seconds = ncu["noise_seconds"].value<double>();
  const std::optional<std::int64_t> calls = ncu["calls"].value<std::int64_t>();
  if (!fraction || !seconds || !calls || *fraction < 0 || *seconds < 0 || *calls < 1 || *calls > 100) {
    throw environment_error("{}: [ncu] needs noise_fraction >= 0, noise_seconds >= 0 and calls in 1..100",
                            kWitnessFile);
  }
  return {.noise_fraction = *fraction, .noise_seconds = *seconds, .calls = static_cast<int>(*calls)};
}

double seconds_of(const MetricValue& value) {
  if (value.unit == "ns" || value.unit == "nsecond") return value.value * 1e-9;
  if (value.unit == "us" || value.unit == "usecond") return value.value * 1e-6;
  if (value.unit == "ms" || value.unit == "msecond") return value.value * 1e-3;
  return value.value;  // "s", or a bare number in seconds
}

double micro(double seconds) { return seconds * 1e6; }

NcuSettings witness_settings(measure::TimingMode mode) {
  return {.section_set = "",
          .clock_control = "none",
          .cache_control = mode == measure::TimingMode::cold ? "all" : "none",
          .import_source = false,
          .metrics = {std::string(kNcuTimeMetric)}};
}

// Runs the calls under ncu into `report_file`; false (with `witness` saying why) when there is
// no report to read.
bool profile_calls(NcuTimeWitness& witness, const NcuWitnessTarget& target, verify::CheckContext& context,
                   const fs::path& ncu, const fs::path& report_file, int calls) {
  const ProfileJob job{.library = target.library,
                       .signature = target.problem->signature,
                       .bound_case = target.bound_case,
                       .seed = 1,
                       .warmup_calls = kWarmupCalls,
                       .profiled_calls = calls,
                       .device = context.worker.device};
  run::WorkerSettings worker = context.worker;
  worker.launcher = ncu_command_prefix(ncu, witness_settings(target.mode), report_file);
  worker.time_limit = std::max(worker.time_limit, std::chrono::duration<double>(600));
  TempDir work("ncu-witness", context.cache_dir / "tmp");
  const run::WorkerOutcome outcome = run::run_worker(context.runner, worker, profile_job_to_json(job), work.path());
  const std::string cause = ncu_failure_cause(outcome.output);
  const bool error = outcome.result && outcome.result->value("kind", "") == "error";
  const bool kernel_failed =
      error && outcome.result->value("exit_code", 0) == static_cast<int>(ExitCode::kernel_failed);
  if (!outcome.result || error) {
    const std::string message = outcome.result ? outcome.result->value("message", std::string("an error"))
                                               : "the worker " + outcome.failure;
    // ncu's own failures (no counters, no permission) leave the kernel unwitnessed; a solve
    // that hangs only under the profiler is the kernel's doing, and fails.
    if (!cause.empty()) witness.unavailable = cause;
    else if (error && !kernel_failed) witness.unavailable = message;
    else witness.failure = outcome.timed_out ? "it did not finish under Nsight Compute: " + message : message;
    return false;
  }
  if (!path_exists(report_file)) {
    witness.unavailable = cause.empty() ? "ncu wrote no report: " + outcome.stderr_tail : cause;
    return false;
  }
  return true;
}

}  // namespace

const NcuWitnessRule& ncu_witness_rule() {
  static const NcuWitnessRule rule = load_ncu_rule();
  return rule;
}

NcuCallTimes ncu_call_seconds(const NcuReport& report, int calls) {
  const std::size_t launches = report.launches.size();
  if (calls < 1 || launches == 0 || launches % static_cast<std::size_t>(calls) != 0) {
    return {.error = fmt::format("{} kernel launches cannot be split into {} equal calls of solve", launches, calls),
            .uneven_launches = true};
  }
  NcuCallTimes times;
  const std::size_t per_call = launches / static_cast<std::size_t>(calls);
  for (std::size_t call = 0; call < static_cast<std::size_t>(calls); ++call) {
    double sum = 0;
    for (std::size_t i = call * per_call; i < (call + 1) * per_call; ++i) {
      const MetricValue* duration = report.launches[i].find(kNcuTimeMetric);
      if (duration == nullptr || !duration->present) {
        return {.error = fmt::format("launch {} ({}) has no {}", report.launches[i].id, report.launches[i].kernel_name,
                                     kNcuTimeMetric)};
      }
      sum += seconds_of(*duration);
    }
    times.seconds.push_back(sum);
  }
  return times;
}

bool ncu_disagrees(double ncu_seconds, double kopt_seconds, const NcuWitnessRule& rule) {
  return ncu_seconds - kopt_seconds > std::max(rule.noise_seconds, rule.noise_fraction * ncu_seconds);
}

void judge_ncu_witness(NcuTimeWitness& witness, const NcuReport& report, const NcuWitnessRule& rule) {
  NcuCallTimes times = ncu_call_seconds(report, rule.calls);
  if (!times.error.empty()) {
    (times.uneven_launches ? witness.failure : witness.unavailable) = times.error;
    return;
  }
  witness.call_seconds = std::move(times.seconds);
  witness.ncu_median_seconds = measure::median(witness.call_seconds);
  witness.disagrees = ncu_disagrees(witness.ncu_median_seconds, witness.kopt_median_seconds, rule);
}

NcuTimeWitness ncu_time_witness(const NcuWitnessTarget& target, verify::CheckContext& context,
                                const NcuWitnessRule& rule) {
  NcuTimeWitness witness{.label = target.label, .case_name = target.bound_case.name,
                         .kopt_median_seconds = target.kopt_median_seconds};
  fs::path ncu;
  try {
    ncu = find_ncu();
  } catch (const Error& e) {
    witness.unavailable = e.what();
    return witness;
  }
  TempDir reports("ncu-witness-report", context.cache_dir / "tmp");
  const fs::path report_file = reports.path() / "witness.ncu-rep";
  if (!profile_calls(witness, target, context, ncu, report_file, rule.calls)) return witness;
  try {
    judge_ncu_witness(witness, parse_ncu_raw_csv(export_raw_csv(context.runner, ncu, report_file)), rule);
  } catch (const Error& e) {
    witness.unavailable = e.what();
  }
  return witness;
}

std::optional<std::string> ncu_witness_flag(const NcuTimeWitness& w, const NcuWitnessRule& rule) {
  const std::string who = fmt::format("{} (case {})", w.label, w.case_name);
  if (!w.failure.empty()) {
    return fmt::format("{}: solve failed under Nsight Compute, though it passed its check ({}): a kernel that behaves "
                       "differently when profiled cannot be witnessed",
                       who, w.failure);
  }
  if (!w.disagrees) return std::nullopt;
  return fmt::format("{}: Nsight Compute timed its kernels at {:.1f} µs per call (gpu__time_duration, --clock-control "
                     "none, median of {} calls), more than kopt's median of {:.1f} µs allows (noise: max({:.0f} µs, "
                     "{:.0f} %)): kopt's samples were made short (patched timers or forged samples)",
                     who, micro(w.ncu_median_seconds), w.call_seconds.size(), micro(w.kopt_median_seconds),
                     micro(rule.noise_seconds), 100 * rule.noise_fraction);
}

void add_ncu_witness(measure::BenchReport& report, const std::vector<spec::Problem>& kernels,
                     const measure::BenchOptions& options, verify::CheckContext& context) {
  const NcuWitnessRule& rule = ncu_witness_rule();
  const HostLock gpu = run::lock_gpu(report.device, context.worker.device);
  json witnessed = json::array();
  for (std::size_t i = 0; i < kernels.size() && i < report.checks.size(); ++i) {
    if (!report.checks[i].build) continue;
    const std::string label = measure::kernel_label(kernels, i, options);
    for (const measure::VariantReport& v : report.variants) {
      const spec::BoundCase* bound_case = kernels[i].find_case(v.case_name);
      if (v.label != label || !v.interleaved || v.samples.gpu_seconds.empty() || bound_case == nullptr) continue;
      const NcuTimeWitness w = ncu_time_witness({.label = label, .problem = &kernels[i],
                                                 .library = report.checks[i].build->library,
                                                 .bound_case = *bound_case, .kopt_median_seconds = v.summary.median,
                                                 .mode = options.settings.mode},
                                                context, rule);
      if (!w.unavailable.empty()) {
        report.warnings.push_back(fmt::format("{} (case {}): not witnessed by Nsight Compute: {}", label, v.case_name,
                                              w.unavailable));
      }
      if (auto flag = ncu_witness_flag(w, rule)) report.flags.push_back(std::move(*flag));
      witnessed.push_back(ncu_witness_to_json(w));
    }
  }
  report.ncu_witness = std::move(witnessed);
}

json ncu_witness_to_json(const NcuTimeWitness& w) {
  return {{"label", w.label},
          {"case", w.case_name},
          {"unavailable", w.unavailable.empty() ? json(nullptr) : json(w.unavailable)},
          {"failure", w.failure.empty() ? json(nullptr) : json(w.failure)},
          {"call_seconds", w.call_seconds},
          {"ncu_median_seconds", w.ncu_median_seconds},
          {"kopt_median_seconds", w.kopt_median_seconds},
          {"disagrees", w.disagrees}};
}

}  // namespace kopt::profile
