#include "kopt/measure/bench.hpp"

#include <fmt/format.h>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <future>
#include <optional>

#include "kopt/build/triton_bridge.hpp"
#include "kopt/core/clock.hpp"
#include "kopt/core/error.hpp"
#include "kopt/core/files.hpp"
#include "kopt/core/secret.hpp"
#include "kopt/measure/bench_assessment.hpp"
#include "kopt/measure/between_runs.hpp"
#include "kopt/measure/call_batch.hpp"
#include "kopt/measure/timed_call_audit.hpp"
#include "kopt/measure/tolerance_audit.hpp"
#include "kopt/measure/reference_timing.hpp"
#include "kopt/measure/code_witness.hpp"
#include "kopt/measure/sample_witness.hpp"
#include "kopt/measure/timing_worker.hpp"
#include "kopt/run/worker_launcher.hpp"
#include "kopt/run/device_probe.hpp"
#include "kopt/run/gpu_lock.hpp"
#include "kopt/run/triton_worker.hpp"
#include "kopt/spec/python_kernel.hpp"
#include "kopt/spec/source_audit.hpp"
#include "kopt/verify/reference.hpp"

namespace kopt::measure {
namespace fs = std::filesystem;
using nlohmann::json;

std::string kernel_label(const std::vector<spec::Problem>& kernels, std::size_t index, const BenchOptions& options) {
  if (index < options.labels.size() && !options.labels[index].empty()) return options.labels[index];
  const spec::Problem& problem = kernels[index];
  std::string name = problem.spec.kernel.filename().string();
  for (std::size_t j = 0; j < kernels.size(); ++j) {
    if (j != index && kernels[j].spec.kernel.filename() == problem.spec.kernel.filename()) {
      return fmt::format("{}#{}", name, index + 1);  // A/A or same-named files: keep labels apart
    }
  }
  return name;
}

namespace {

// The library to time: the checked one, except in graph mode, which needs launches on the
// per-thread default stream to capture them (the legacy stream cannot be captured). That
// build is verified again after its timing loop like any other.
fs::path timing_library(const spec::Problem& kernel, const verify::CheckReport& check, const BenchOptions& options,
                        std::size_t index, verify::CheckContext& context) {
  if (options.settings.mode != TimingMode::graph) return check.build->library;
  build::Compiler compiler(context.runner, build::find_nvcc(), context.cache_dir);
  std::vector<std::string> flags = kernel.spec.build.flags;
  flags.insert(flags.end(), {"--default-stream", "per-thread"});
  build::BuildOutcome outcome = compiler.compile(
      {.source = build::kernel_build_source(context.cache_dir, kernel), .arch = check.arch, .flags = flags,
       .defines = check_options_for(options, index).defines});
  if (!outcome.ok()) {
    throw Error(ExitCode::kernel_failed, fmt::format("the graph-mode build (--default-stream per-thread) of {} failed: {}",
                                                     kernel.spec.kernel.string(), outcome.failure->first_error));
  }
  return outcome.artifact->library;
}

}  // namespace

const spec::BoundCase& perf_case(const spec::Problem& problem) {
  if (problem.cases.empty()) throw input_error("{} has no case to time", problem.spec.name);
  const spec::BoundCase* named = problem.find_case("default");
  return named != nullptr ? *named : problem.cases.front();
}

std::vector<spec::BoundCase> timed_cases(const spec::Problem& problem, TimedCases which) {
  if (which == TimedCases::all) return problem.cases;
  return {perf_case(problem)};
}

verify::CheckOptions check_options_for(const BenchOptions& options, std::size_t index) {
  verify::CheckOptions check = options.check;
  if (index < options.kernel_defines.size()) {
    check.defines.insert(check.defines.end(), options.kernel_defines[index].begin(), options.kernel_defines[index].end());
  }
  return check;
}

bool BenchReport::passed() const {
  for (const verify::CheckReport& check : checks) {
    if (!check.passed()) return false;
  }
  return flags.empty() && !variants.empty();
}

namespace {

// Hands a Python reference server to every check and reference run of the context while it
// lives, and takes it back: the server is the bench's own.
class ServedBy {
 public:
  ServedBy(verify::CheckContext& context, verify::PythonReferenceServer* server)
      : context_(context), before_(context.python_server) {
    if (server != nullptr) context_.python_server = server;
  }
  ~ServedBy() { context_.python_server = before_; }
  ServedBy(const ServedBy&) = delete;
  ServedBy& operator=(const ServedBy&) = delete;

 private:
  verify::CheckContext& context_;
  verify::PythonReferenceServer* before_;
};

// The runner times a .py reference in its own process once the worker is done: the two never
// share the GPU, and its samples cannot be interleaved with the kernels'.
void add_python_reference(BenchReport& report, const spec::Problem& problem, const BenchOptions& options,
                          verify::CheckContext& context, const run::WorkerSettings& worker) {
  verify::ReferenceContext reference_context{context.runner, context.cache_dir, worker};
  reference_context.python_server = context.python_server;
  const std::int64_t l2_bytes = report.device.is_object() ? report.device.value("l2_bytes", std::int64_t{0}) : 0;
  // No longer than the first kernel took on any case (the kernels were timed first).
  double budget_seconds = 0;
  for (const VariantReport& v : report.variants) {
    if (v.label == report.variants.front().label) {
      // GPU time: every call of every sample (a batch holds calls_per_sample of them).
      budget_seconds = std::max(budget_seconds, v.summary.mean * static_cast<double>(v.summary.count) *
                                                    std::max(1, v.samples.calls_per_sample));
    }
  }
  const json request = reference_time_request(options.settings, l2_bytes, report.event_tick_seconds, budget_seconds);
  std::vector<json> timings;
  try {
    timings = verify::python_reference_timings(problem, options.check.first_seed, request, reference_context);
  } catch (const Error& e) {
    for (const spec::BoundCase& c : problem.cases) {
      report.untimed.push_back({"reference", c.name, fmt::format("not timed: {}", e.what())});
    }
    return;
  }
  std::vector<VariantSamples> timed;
  for (std::size_t c = 0; c < timings.size() && c < problem.cases.size(); ++c) {
    ReferenceTiming timing = reference_timing_from_json(timings[c], problem.cases[c].name);
    timing.samples.resolution_seconds = report.event_tick_seconds;  // torch's events: the same timer
    timing.samples.l2 = std::string(l2_policy(options.settings.mode, 1));  // the runner times one call per sample
    if (!timing.timed) report.untimed.push_back({"reference", problem.cases[c].name, timing.reason});
    else timed.push_back(std::move(timing.samples));
  }
  add_variants(report, problem, std::move(timed), options.settings.mode, false);
}

// Makes the checks of one bench call `start` once their kernel worker has exited; the hook
// goes with this object, however the bench ends, so no later check calls it.
class StartAfterKernelWorker {
 public:
  StartAfterKernelWorker(verify::CheckContext& context, std::function<void()> start) : context_(context) {
    context_.after_kernel_worker = std::move(start);
  }
  ~StartAfterKernelWorker() { context_.after_kernel_worker = nullptr; }
  StartAfterKernelWorker(const StartAfterKernelWorker&) = delete;
  StartAfterKernelWorker& operator=(const StartAfterKernelWorker&) = delete;

 private:
  verify::CheckContext& context_;
};

// The timing worker's job: every kernel (its library as checked) on the timed cases, in an
// order and with inputs from secret seeds, and the .cu reference beside them when it is timed.
BenchJob bench_job_of(const std::vector<spec::Problem>& kernels, const BenchReport& report, const BenchOptions& options,
                      verify::CheckContext& context) {
  const spec::Problem& first = kernels.front();
  BenchJob job{.signature = first.signature, .cases = timed_cases(first, options.timed_cases), .sample_key = secret_seed(),
               .order_seed = secret_seed(), .settings = options.settings, .device = context.worker.device};
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    job.variants.push_back({kernel_label(kernels, i, options),
                            timing_library(kernels[i], report.checks[i], options, i, context)});
    // Kept when the check saw the outputs vary, and also when the source can make them vary
    // (atomics) though the check's runs agreed: a digest mismatch is then settled within
    // tolerance (tolerance_audit.hpp). Nothing is kept for a bench that audits nothing (the
    // loop's first look).
    job.variants.back().retain_outputs =
        options.audit_timed_calls &&
        (varies_between_runs(report.checks[i]) || spec::varying_outputs_hint(kernels[i].spec.kernel).has_value());
  }
  const bool cuda_reference = first.spec.reference && !verify::is_python_reference(*first.spec.reference);
  if (options.time_reference && cuda_reference) {
    build::Compiler compiler(context.runner, build::find_nvcc(), context.cache_dir);
    build::BuildOutcome reference = compiler.compile({.source = *first.spec.reference, .arch = report.checks.front().arch,
                                                      .flags = first.spec.build.flags});
    if (reference.ok()) {
      job.variants.push_back({.label = "reference", .library = reference.artifact->library, .budgeted = true,
                              .read_back_outputs = false});
    }
  }
  return job;
}

// Triton kernels' libraries are bridges their Python-hosted worker serves (run/triton_worker.hpp):
// the timing worker and the audit's workers are that worker; the reference's stays kopt's.
verify::CheckContext kernel_context_of(const std::vector<spec::Problem>& kernels, BenchJob& job,
                                       const BenchOptions& options, const verify::CheckContext& context,
                                       const fs::path& triton_plan_dir) {
  verify::CheckContext kernel_context = context;
  std::vector<fs::path> libraries;
  for (const BenchVariant& variant : job.variants) libraries.push_back(variant.library);
  std::vector<std::vector<std::pair<std::string, std::string>>> kernel_defines;
  for (std::size_t i = 0; i < kernels.size(); ++i) kernel_defines.push_back(check_options_for(options, i).defines);
  const std::vector<run::TritonBridge> bridges = run::triton_bridges(kernels, libraries, kernel_defines);
  kernel_context.worker = run::triton_worker_settings(context.runner, context.worker, find_python, context.cache_dir,
                                                      bridges, triton_plan_dir / "triton_plan.json");
  job.python_hosted = !bridges.empty();
  return kernel_context;
}

// What the audits of the timed calls compare with: the first kernel, its arch, and the outputs
// the timing worker kept.
struct AuditInputs {
  const spec::Problem& first;
  const std::string& arch;
  fs::path kept_outputs;
};

// Each timed call's outputs held against its check (and, where they may vary, within tolerance).
void audit_samples(std::vector<VariantSamples>& samples, const BenchJob& job, const std::vector<verify::CheckReport>& checks,
                   const AuditInputs& inputs, verify::CheckContext& kernel_context, AuditWorkers& audit_workers) {
  std::mt19937_64 audit_choice(secret_seed());
  audit_timed_calls(samples, job, checks, kernel_context, audit_choice, audit_workers);
  audit_timed_calls_within_tolerance(samples, job, inputs.kept_outputs, inputs.first, inputs.arch, kernel_context,
                                     audit_choice);
}

// A .py reference, timed on the bench's cases after the kernels, with the checks' confinement
// and the bench's limit.
void time_python_reference(BenchReport& report, const spec::Problem& first, const BenchJob& job,
                           const BenchOptions& options, verify::CheckContext& context,
                           std::chrono::duration<double> timing_limit) {
  spec::Problem timed = first;
  timed.cases = job.cases;
  const Stopwatch reference_started;
  run::WorkerSettings reference_worker = context.worker;
  reference_worker.time_limit = timing_limit;
  add_python_reference(report, timed, options, context, reference_worker);
  report.phase_seconds.python_reference = reference_started.seconds();
}

// Every kernel checked, in order, until one fails (false: nothing is timed).
bool checked_every_kernel(BenchReport& report, const std::vector<spec::Problem>& kernels, const BenchOptions& options,
                          verify::CheckContext& context) {
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    report.checks.push_back(verify::run_check(kernels[i], check_options_for(options, i), context));
    if (!report.checks.back().passed()) return false;
  }
  return true;
}

// The checks the kernels are timed on: the caller's (run_bench's `checked`), else every kernel
// checked here in order until one fails (false: nothing is timed).
bool checks_for_timing(BenchReport& report, const std::vector<spec::Problem>& kernels, const BenchOptions& options,
                       verify::CheckContext& context, const std::vector<verify::CheckReport>* checked,
                       AuditWorkers& audit_workers) {
  if (checked == nullptr) return checked_every_kernel(report, kernels, options, context);
  if (checked->size() != kernels.size() || !std::ranges::all_of(*checked, &verify::CheckReport::passed)) {
    throw std::logic_error("run_bench: the checks handed over are not one passing check per kernel");
  }
  report.checks = *checked;
  audit_workers.start();  // no kernel worker of a check to wait for
  return true;
}

// One Python runner serves every run of a .py reference in this bench (the checks, the audit
// within tolerance, the reference's timing): Python, numpy and torch start once, not three
// times and once per kernel (verify/reference_server.hpp). A caller's runner (the loop's lab
// serves its own checks and this bench from one) is kept: none is started then.
std::unique_ptr<verify::PythonReferenceServer> bench_python_server(const spec::Problem& first,
                                                                   verify::CheckContext& context,
                                                                   std::chrono::duration<double> timing_limit) {
  if (context.python_server != nullptr) return nullptr;
  return verify::serve_python_reference(first, context.runner, context.cache_dir,
                                        std::max(verify::python_reference_time_limit(context.worker), timing_limit),
                                        std::nullopt);  // no CUDA ahead: its first request may follow the timing
}

// The device the checks ran on, who else held a context on it, and its datasheet's peaks.
void note_device(BenchReport& report, const run::GpuIdleCheck& contexts) {
  report.device = report.checks.front().device;
  report.idle = run::on_gpu(contexts, report.device.value("uuid", ""));
  if (std::string warning = run::idle_warning(report.idle); !warning.empty()) report.warnings.push_back(std::move(warning));
  report.peaks = datasheet_peaks(report.device.value("name", ""));
}

// The timing worker's result, and what the report keeps of it; none when the worker failed
// (a flag says how).
std::optional<BenchJobResult> timing_result(BenchReport& report, const TimingOutcome& timing) {
  const run::WorkerOutcome& outcome = timing.worker;
  report.code_witness = timing.code;
  if (auto flag = code_witness_flag(report.code_witness)) report.flags.push_back(std::move(*flag));
  if (!outcome.result) {
    report.flags.push_back(fmt::format("timing failed: the worker {}{}", outcome.failure,
                                       outcome.last_progress.empty() ? "" : " (" + outcome.last_progress + ")"));
    return std::nullopt;
  }
  run::rethrow_worker_error(*outcome.result);
  BenchJobResult result = bench_result_from_json(*outcome.result);
  report.wall_seconds = result.wall_seconds;
  report.worker_phases = result.phases;
  report.event_tick_seconds = result.event_tick_seconds;
  return result;
}

}  // namespace

BenchReport run_bench(const std::vector<spec::Problem>& kernels, const BenchOptions& options,
                      verify::CheckContext& context, const std::vector<verify::CheckReport>* checked) {
  if (kernels.empty()) throw input_error("nothing to measure: name at least one kernel");
  BenchReport report{.mode = std::string(timing_mode_name(options.settings.mode)), .settings = options.settings};

  const Stopwatch started;
  const auto timing_limit = std::chrono::duration<double>(
      60 + static_cast<double>(timed_cases(kernels.front(), options.timed_cases).size()) *
               (options.settings.stopping.timeout_seconds + 30));
  const std::unique_ptr<verify::PythonReferenceServer> python_server = bench_python_server(kernels.front(), context, timing_limit);
  const ServedBy served(context, python_server.get());
  // The timing worker of .cu kernels starts now, so that its CUDA set-up overlaps the checks;
  // a Triton kernel's is its Python host (run/triton_worker.hpp), started once the checks have
  // built the bridges it serves.
  const bool triton = std::ranges::any_of(kernels, [](const spec::Problem& k) { return spec::is_python_kernel(k.spec.kernel); });
  std::optional<TimingWorker> timing_worker;
  if (!triton) timing_worker.emplace(context, timing_limit);
  // The audit's workers start once the first check's kernel worker is done; a Triton
  // kernel's audit runs in hosts started at the audit.
  AuditWorkers audit_workers(context, triton ? 0 : audit_workers_to_prestart(kernels.size(), options.audit_timed_calls));
  const StartAfterKernelWorker audit_start(context, [&audit_workers] { audit_workers.start(); });
  // The GPU lock keeps other kopt processes from timing beside this one, not a training job or
  // another kopt's check: who else holds a context on a GPU is asked while the checks run
  // (kopt's own workers aside), before anything is timed, and said.
  std::future<run::GpuIdleCheck> contexts =
      std::async(std::launch::async, [&context] { return run::query_gpu_contexts(context.runner, getpid()); });
  if (!checks_for_timing(report, kernels, options, context, checked, audit_workers)) return report;  // correctness before speed
  report.phase_seconds.checks = started.seconds();
  const spec::Problem& first = kernels.front();
  const std::string arch = report.checks.front().arch;
  note_device(report, contexts.get());

  BenchJob job = bench_job_of(kernels, report, options, context);
  report.order_seed = job.order_seed;
  TempDir triton_plan("check", context.cache_dir / "tmp");  // named as the check's: timed_call_audit.hpp
  verify::CheckContext kernel_context = kernel_context_of(kernels, job, options, context, triton_plan.path());
  if (!timing_worker) timing_worker.emplace(kernel_context, timing_limit);
  // The GPU is this process's alone from here to the end: timing, audits, a .py reference.
  const HostLock gpu = run::lock_gpu(report.device, context.worker.device);
  // No context is made beside the timed calls: the audit's workers finish setting up first.
  audit_workers.wait_until_set_up(std::chrono::seconds(10));
  const Stopwatch timing_started;
  // Named as a check's folder (timed_call_audit.hpp); out of every worker's reach once moved here.
  TempDir kept_outputs("check", context.cache_dir / "tmp");
  TimingOutcome timing = timing_worker->run(job, kept_outputs.path() / "kept", context.worker.confine_writes);
  const WitnessedSpans& spans = timing.spans;
  report.phase_seconds.timing = timing_started.seconds();
  std::optional<BenchJobResult> timed = timing_result(report, timing);
  if (!timed) return report;
  BenchJobResult& result = *timed;
  report.timed_calls_audited = options.audit_timed_calls;
  if (options.audit_timed_calls) {
    const Stopwatch audit_started;
    audit_samples(result.samples, job, report.checks, {first, arch, kept_outputs.path() / "kept"}, kernel_context,
                  audit_workers);
    report.phase_seconds.audit = audit_started.seconds();
  }
  add_witness_flags(report, result.samples, spans, solve_host(job));

  add_variants(report, first, std::move(result.samples), options.settings.mode, true);
  add_witness_numbers(report, spans, solve_host(job));
  const bool python_reference = first.spec.reference && verify::is_python_reference(*first.spec.reference);
  if (options.time_reference && python_reference) time_python_reference(report, first, job, options, context, timing_limit);
  add_verdicts(report, job.variants.front().label, options.comparison);
  if (auto note = between_runs_note(report, between_runs_rule())) report.notes.push_back(std::move(*note));
  report.phase_seconds.total = started.seconds();
  return report;
}

}  // namespace kopt::measure
