#include "kopt/verify/check.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <optional>

#include "kopt/core/clock.hpp"
#include "kopt/core/error.hpp"
#include "kopt/core/file_queries.hpp"
#include "kopt/core/files.hpp"
#include "kopt/core/hash.hpp"
#include "kopt/core/parallel_for.hpp"
#include "kopt/core/secret.hpp"
#include "kopt/build/triton_bridge.hpp"
#include "kopt/run/device_probe.hpp"
#include "kopt/run/probe_cache.hpp"
#include "kopt/run/problem_codec.hpp"
#include "kopt/run/triton_worker.hpp"
#include "kopt/spec/problem_work.hpp"
#include "kopt/spec/python_kernel.hpp"
#include "kopt/verify/input_dependence.hpp"
#include "kopt/verify/npy.hpp"
#include "kopt/verify/reference.hpp"

namespace kopt::verify {
namespace fs = std::filesystem;
using nlohmann::json;

build::CompileRequest kernel_compile_request(const spec::Problem& problem, const CheckOptions& options,
                                             const fs::path& cache_dir, const std::string& arch) {
  return {.source = build::kernel_build_source(cache_dir, problem), .arch = arch, .flags = problem.spec.build.flags,
          .defines = options.defines};
}

std::string resolve_arch(const std::string& spec_arch, const std::optional<std::string>& option,
                         const std::string& device_arch) {
  if (option) return *option;
  if (spec_arch.empty() || spec_arch == "native") return device_arch;
  return spec_arch;
}

namespace {

// A Triton kernel runs in its Python-hosted worker (run/triton_worker.hpp), a .cu kernel in kopt's.
run::WorkerSettings kernel_worker(CheckContext& context, const spec::Problem& problem, const fs::path& library,
                                  const CheckOptions& options, const fs::path& work) {
  return run::triton_worker_settings(context.runner, context.worker, find_python, context.cache_dir,
                                     run::triton_bridges({problem}, {library}, {options.defines}),
                                     work / "triton_plan.json");
}

// Secret seeds unless the user fixed the first one: inputs a kernel cannot have been
// prepared for (docs/integrity.md). The report records them, so a run can be repeated.
std::vector<std::uint64_t> seeds_of(const CheckOptions& options) {
  if (options.seed_count < 1) throw input_error("--seeds must be at least 1 (got {})", options.seed_count);
  std::vector<std::uint64_t> seeds;
  for (int i = 0; i < options.seed_count; ++i) {
    seeds.push_back(options.first_seed != 0 ? options.first_seed + static_cast<std::uint64_t>(i) : secret_seed());
  }
  return seeds;
}

// Where the kernel's worker leaves the first call's outputs of each (case, seed).
std::vector<std::vector<fs::path>> output_dirs(const fs::path& root, std::size_t cases, std::size_t seeds) {
  std::vector<std::vector<fs::path>> dirs(cases);
  for (std::size_t c = 0; c < cases; ++c) {
    for (std::size_t s = 0; s < seeds; ++s) {
      dirs[c].push_back(root / fmt::format("case{}-seed{}", c, s));
      create_folders(dirs[c].back());
    }
  }
  return dirs;
}

std::string describe_reference(const spec::Problem& problem, const ReferenceOutputs& outputs) {
  return fmt::format("{} ({}, {}; {} computed, {} cached)", problem.spec.reference->filename().string(), outputs.kind,
                     outputs.backend, outputs.computed, outputs.cached);
}

// `hosted`: the worker was a Triton kernel's Python host, whose own refusals end its stderr.
KernelFailure failure_from_worker(const run::WorkerOutcome& outcome, std::chrono::duration<double> limit, bool hosted) {
  std::string where = outcome.last_progress.empty() ? "" : " (" + outcome.last_progress + ")";
  if (outcome.forged) return {"forged_result", outcome.failure + where, outcome.stderr_tail};
  if (outcome.timed_out) {
    return {"timeout",
            fmt::format("solve did not finish within {:.0f} s{}; its worker was killed", limit.count(), where),
            outcome.stderr_tail};
  }
  return {"crash",
          fmt::format("the worker running solve {}{}{}", outcome.failure.substr(outcome.failure.find(' ') + 1), where,
                      hosted ? host_refusal_of(outcome.stderr_tail) : ""),
          outcome.stderr_tail};
}

std::string check_key(const CheckJob& job, const json& device, const spec::Problem& problem) {
  json identity = check_job_to_json(job);
  identity.erase("library");  // the build key below names the library's content
  return ContentHasher()
      .add("kopt-check-1")
      .add(KOPT_VERSION)
      .add(job.library.parent_path().filename().string())
      .add(identity.dump())
      .add(device.value("uuid", ""))
      .add(problem.spec.reference ? content_hash(read_file(*problem.spec.reference)) : "no reference")
      .hex();
}

CheckReport with_compile_failure(CheckReport report, const spec::Problem& problem, const build::BuildFailure& failure,
                                 const std::string& arch) {
  report.arch = arch;
  report.failure = KernelFailure{"compile_error",
                                 fmt::format("{} does not compile: {}", problem.spec.kernel.filename().string(),
                                             failure.first_error),
                                 failure.log};
  return report;
}

// More outputs side by side than this cost memory (two copies of each) without saving time:
// each comparison already spreads over every core (output_comparison.cpp).
constexpr unsigned kComparisonWidth = 4;

// [case][seed] → each output's digest in the kernel's run of that case and seed.
std::vector<std::vector<std::vector<std::uint64_t>>> digests_by_case_and_seed(const CheckReport& report) {
  std::vector<std::vector<std::vector<std::uint64_t>>> digests(
      report.cases.size(), std::vector<std::vector<std::uint64_t>>(report.seeds.size()));
  for (const RunRecord& run : report.runs) {
    const auto seed = static_cast<std::size_t>(std::ranges::find(report.seeds, run.seed) - report.seeds.begin());
    const auto c = static_cast<std::size_t>(run.case_index);
    if (c < digests.size() && seed < report.seeds.size()) digests[c][seed] = run.output_digests;
  }
  return digests;
}

// Every run's dumped outputs against the reference's, runs side by side.
void compare_with_reference_outputs(CheckReport& report, const CheckJob& job, const ReferenceOutputs& reference) {
  parallel_for(
      report.runs.size(),
      [&](std::size_t r) {
        RunRecord& run = report.runs[r];
        const auto c = static_cast<std::size_t>(run.case_index);
        const auto seed = static_cast<std::size_t>(std::ranges::find(report.seeds, run.seed) - report.seeds.begin());
        const bool digests_known = c < reference.digests.size() && seed < reference.digests[c].size();
        compare_dumped_outputs(report.cases[c], job.dump_dirs[c][seed], reference.dirs[c][seed],
                               digests_known ? reference.digests[c][seed] : std::vector<std::uint64_t>{}, run);
      },
      kComparisonWidth);
}

// The context's folder of temporaries, made if missing.
fs::path tmp_folder(const CheckContext& context) {
  create_folders(context.cache_dir / "tmp");
  return context.cache_dir / "tmp";
}

// What one check carries from step to step.
struct CheckRun {
  CheckRun(const spec::Problem& p, const CheckOptions& o, CheckContext& c)
      : problem(p), options(o), context(c),
        report{.kernel = p.spec.kernel, .problem_name = p.spec.name, .entry = p.signature.entry,
               .guesses = p.guesses, .seeds = seeds_of(o), .cases = p.cases},
        work("check", tmp_folder(c)),
        private_references(work.path() / "reference-cache"),
        python_reference(p.spec.reference && is_python_reference(*p.spec.reference)),
        compiler(c.runner, build::find_nvcc(), c.cache_dir) {
    create_folders(private_references / "tmp");
  }

  const spec::Problem& problem;
  const CheckOptions& options;
  CheckContext& context;
  CheckReport report;
  Stopwatch clock;
  TempDir work;
  fs::path private_references;
  bool python_reference = false;
  build::Compiler compiler;
  std::optional<build::BuildOutcome> build;
  run::ProbeFacts probe_facts;
  run::DeviceProbe probe;
  bool probe_from_cache = false;
  bool reuse_cache = false;  // fixed seeds and confined workers: cached checks and references are trusted
  // The check's own Python runner (none when a caller's serves it: ReferenceContext::python_server).
  std::unique_ptr<PythonReferenceServer> own_server;
};

void compile_kernel(CheckRun& run, const std::string& arch) {
  run.build = run.compiler.compile(kernel_compile_request(run.problem, run.options, run.context.cache_dir, arch));
  run.clock.lap(run.report.phase_seconds.compile);
}

// A broken spec is the user's first problem, before a missing GPU: a Python reference runs
// without one, and its failure (exit 2) is reported instead. It runs on the smallest case and
// one seed only, so that "no GPU" takes a second, not the reference's whole work. No kernel has
// run, so computing it here exposes nothing.
void check_python_spec_without_gpu(CheckRun& run, const std::string& known_arch) {
  spec::Problem smallest = run.problem;
  smallest.cases = {spec::smallest_case(run.problem.cases)};
  ReferenceContext spec_check{run.context.runner, run.private_references, run.context.worker, true};
  spec_check.python_server = run.own_server.get();  // started before the probe, when it was
  reference_outputs(smallest, {run.report.seeds.front()}, spec_check, nullptr, known_arch);
}

void probe_device(CheckRun& run, const std::string& known_arch) {
  run.probe_facts = run::read_probe_facts(run.context.worker);
  try {
    run::CachedProbe cached = run::probe_device_cached(run.context.runner, run.context.worker, run.work.path() / "probe",
                                                       run.context.cache_dir, run.probe_facts);
    run.probe = std::move(cached.probe);
    run.probe_from_cache = cached.from_cache;
  } catch (const Error& no_device) {
    if (run.python_reference && no_device.code() == ExitCode::environment) check_python_spec_without_gpu(run, known_arch);
    throw;
  }
  run.clock.lap(run.report.phase_seconds.probe);
  // Every later worker of this context (the bench's timing and audit too) is confined when
  // the probe found that CUDA works so. Cached references and passed checks are trusted only
  // where no kernel could have rewritten them: fixed seeds, and confined workers.
  run.context.worker.confine_writes = run.probe.writes_confinable;
  run.reuse_cache = run.options.first_seed != 0 && run.probe.writes_confinable;
  run.report.writes_confined = run.probe.writes_confinable;
  run.report.device = run.probe.device;
}

ReferenceContext reference_context_of(const CheckRun& run) {
  ReferenceContext references{run.context.runner, run.reuse_cache ? run.context.cache_dir : run.private_references,
                              run.context.worker, !run.reuse_cache};
  references.python_server = run.context.python_server;
  return references;
}

// A passing check of this exact library, on these cases and seeds, on this device, kept.
CheckReport report_from_cache(CheckReport report, const fs::path& cached, const Stopwatch& clock) {
  const json kept = json::parse(read_file(cached));
  CheckJobResult result = check_result_from_json(kept);
  report.runs = std::move(result.runs);
  report.reference = "cached with the check";
  report.sandbox = kept.value("sandbox", "");
  report.warnings = kept.value("warnings", std::vector<std::string>{});
  report.from_cache = true;
  report.phase_seconds.total = clock.seconds();
  return report;
}

// The kernel's worker over every case and seed. A .cu reference's worker starts once the
// kernel's has set CUDA up (its first progress line: CUDA contexts are made one at a time), so
// that its own set-up overlaps the kernel's calls; its job (the seeds, the kernel's digests)
// comes only after the kernel's worker has exited (run::PrestartedWorker).
run::WorkerOutcome run_kernel_worker(CheckRun& run, const CheckJob& job, ReferenceContext& references,
                                     std::optional<TempDir>& reference_work,
                                     std::optional<run::PrestartedWorker>& reference_worker) {
  run::WorkerSettings worker = kernel_worker(run.context, run.problem, job.library, run.options, run.work.path());
  if (run.problem.spec.reference && !run.python_reference) {
    worker.on_progress = [&](const std::string&) {
      if (reference_worker) return;
      reference_work.emplace("reference-job", references.cache_dir / "tmp");
      reference_worker.emplace(run.context.runner, references.worker, reference_work->path());
      references.prestarted = &*reference_worker;
    };
  }
  run::WorkerOutcome outcome = run::run_worker(run.context.runner, worker, check_job_to_json(job), run.work.path() / "check");
  run.clock.lap(run.report.phase_seconds.kernel_worker);
  if (!run.options.triton_cubins_out.empty()) {
    run.report.triton_cubins = run::keep_triton_cubins(run.work.path() / "check", run.options.triton_cubins_out);
  }
  if (run.context.after_kernel_worker) run.context.after_kernel_worker();
  run.report.phase_seconds.total = run.clock.seconds();
  return outcome;
}

// A check of its own (no caller's runner) whose .py reference has outputs to compute starts its
// runner first: Python, numpy and torch load while nvcc, the probe and the kernel's worker run
// (docs/measurement.md). The reference still runs only once the kernel's worker has exited; a
// check that ends before asking (a compile error, a cached result, a failing kernel) ends the
// runner at once (reference_server.hpp). Fixed seeds' outputs all cached: whether that cache is
// trusted is known after the probe, and serve_python_reference_now decides then.
void serve_python_reference_early(CheckRun& run) {
  if (!run.python_reference || run.context.python_server != nullptr) return;
  if (run.options.first_seed != 0 && python_references_cached(run.problem, run.report.seeds, run.context.cache_dir)) return;
  run.own_server = serve_python_reference(run.problem, run.context.runner, run.context.cache_dir,
                                          python_reference_time_limit(run.context.worker), run.context.worker.device);
}

// Before the kernel's worker: the runner started early, else one started now unless every
// output is cached (it would only delay the check's end by its imports).
void serve_python_reference_now(CheckRun& run, ReferenceContext& references) {
  if (!run.own_server && run.python_reference && references.python_server == nullptr &&
      !(run.reuse_cache && python_references_cached(run.problem, run.report.seeds, references.cache_dir))) {
    run.own_server = serve_python_reference(run.problem, run.context.runner, run.context.cache_dir,
                                            python_reference_time_limit(run.context.worker), run.context.worker.device);
  }
  if (run.own_server) references.python_server = run.own_server.get();
}

// The kernel's outputs against the reference's, and whether they follow the inputs.
void judge_against_reference(CheckRun& run, const CheckJob& job, ReferenceContext& references) {
  CheckReport& report = run.report;
  references.kernel_digests = digests_by_case_and_seed(report);
  ReferenceOutputs reference = reference_outputs(run.problem, report.seeds, references,
                                                 run.python_reference ? nullptr : &run.compiler, report.arch);
  report.reference = describe_reference(run.problem, reference);
  report.reference_seconds = reference.python_seconds;
  run.clock.lap(report.phase_seconds.reference);
  compare_with_reference_outputs(report, job, reference);
  const auto reference_data = [&](std::size_t c, std::size_t seed, const spec::BoundBuffer& buffer) {
    return read_npy(reference.dirs[c][seed] / (buffer.name + ".npy")).data;
  };
  judge_input_dependence(report, reference_data, input_dependence_rule());
  run.clock.lap(report.phase_seconds.comparison);
}

void keep_passed_check(const CheckReport& report, json kept, const fs::path& cached) {
  kept["runs"] = json::array();
  for (const RunRecord& record : report.runs) kept["runs"].push_back(run_record_to_json(record));
  kept["warnings"] = report.warnings;
  write_file_atomic(cached, kept.dump());
}

// The kernel runs first and alone: its reference outputs do not exist yet while its code
// runs, and they are compared here, in kopt's own process. Secret seeds' references are
// never cached (no later kernel could use them, and they would only fill the disk).
CheckReport run_check_once(const spec::Problem& problem, const CheckOptions& options, CheckContext& context) {
  CheckRun run(problem, options, context);
  CheckReport& report = run.report;
  report.source_findings = spec::audit_kernel_source(problem.spec.kernel);
  report.strict = options.strict;
  if (report.strict && !report.source_findings.empty()) return report;  // nothing runs under --strict
  serve_python_reference_early(run);
  // With the target known up front, compile errors come before the GPU is needed.
  report.nvcc_version = run.compiler.nvcc_version();
  const std::string known_arch = resolve_arch(problem.spec.build.arch, options.arch, "");
  if (!known_arch.empty()) compile_kernel(run, known_arch);
  if (run.build && !run.build->ok()) return with_compile_failure(std::move(report), problem, *run.build->failure, known_arch);
  probe_device(run, known_arch);
  ReferenceContext references = reference_context_of(run);
  report.arch = resolve_arch(problem.spec.build.arch, options.arch, run.probe.device.arch());
  if (!run.build) compile_kernel(run, report.arch);
  if (!run.build->ok()) {
    const std::string arch = report.arch;  // not read beside the move: the arguments' order is unspecified
    return with_compile_failure(std::move(report), problem, *run.build->failure, arch);
  }
  report.build = run.build->artifact;
  CheckJob job{.library = run.build->artifact->library, .signature = problem.signature, .cases = problem.cases,
               .seeds = report.seeds, .device = context.worker.device};
  const fs::path cached = context.cache_dir / "check" / (check_key(job, report.device, problem) + ".json");
  if (run.reuse_cache && path_exists(cached)) return report_from_cache(std::move(report), cached, run.clock);
  if (problem.spec.reference) {
    job.dump_dirs = output_dirs(run.work.path() / "outputs", job.cases.size(), job.seeds.size());
    job.scratch_dumps = true;
  }
  std::optional<TempDir> reference_work;
  std::optional<run::PrestartedWorker> reference_worker;
  serve_python_reference_now(run, references);
  const run::WorkerOutcome outcome = run_kernel_worker(run, job, references, reference_work, reference_worker);
  if (!outcome.result) {
    report.failure = failure_from_worker(outcome, context.worker.time_limit, spec::is_python_kernel(problem.spec.kernel));
    return report;
  }
  run::rethrow_worker_error(*outcome.result);
  report.sandbox = run.probe.writes_confinable ? outcome.result->value("sandbox", "not reported by the worker")
                                               : "not confined: " + run.probe.sandbox;
  CheckJobResult result = check_result_from_json(*outcome.result);
  if (run.probe_from_cache && result.device.value("uuid", "") != run.probe.device.uuid) {
    // Not the GPU the cached probe named (reconfigured since, without a reboot): probe afresh.
    run::forget_probe(context.cache_dir, context.worker, run.probe_facts);
    run.own_server.reset();  // never asked: it ends at once, and the check afresh starts its own
    return run_check_once(problem, options, context);
  }
  report.runs = std::move(result.runs);
  report.worker_phases = result.phases;
  if (result.fatal) {
    report.failure = KernelFailure{std::string(finding_kind_name(result.fatal->kind)), result.fatal->message, ""};
    return report;
  }
  if (std::string gap = coverage_gap(report); !gap.empty()) {
    report.failure = KernelFailure{"fault", "the kernel's worker did not return one run per case and seed: " + gap, ""};
    return report;
  }
  report.reference = "none";
  if (problem.spec.reference) judge_against_reference(run, job, references);
  if (report.passed() && run.reuse_cache) keep_passed_check(report, *outcome.result, cached);
  report.phase_seconds.total = run.clock.seconds();
  return report;
}

}  // namespace

CheckReport run_check(const spec::Problem& problem, const CheckOptions& options, CheckContext& context) {
  // compute-sanitizer would run kopt's worker without the Python host: nothing would serve solve.
  if (options.sanitize) spec::refuse_python_kernel(problem.spec.kernel, "--sanitize");
  CheckReport report = run_check_once(problem, options, context);
  // Run even when the check failed: memcheck names the access behind a fault or a wrong result.
  if (options.sanitize && report.build) report.sanitizers = run_sanitizers(problem, report, context);
  return report;
}

}  // namespace kopt::verify
