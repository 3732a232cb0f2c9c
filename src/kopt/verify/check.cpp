#include "kopt/verify/check.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <optional>
#include <sstream>

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
#include "kopt/spec/python_kernel.hpp"
#include "kopt/verify/input_dependence.hpp"
#include "kopt/verify/npy.hpp"
#include "kopt/verify/reference.hpp"

namespace kopt::verify {
namespace fs = std::filesystem;
using nlohmann::json;

bool CheckReport::passed() const {
  if (failure) return false;
  if (strict && !source_findings.empty()) return false;
  for (const RunRecord& run : runs) {
    if (!run.passed()) return false;
  }
  if (sanitizers && !sanitizer_cause(*sanitizers).empty()) return false;
  return !runs.empty();
}

std::string CheckReport::cause() const {
  if (failure) return failure->message;
  // Each finding has its own FAIL line already: the cause counts them rather than repeat one.
  if (strict && !source_findings.empty()) {
    return fmt::format("--strict: the source audit named {} line(s) of the kernel's source; nothing was run",
                       source_findings.size());
  }
  for (const RunRecord& run : runs) {
    if (!run.passed()) return fmt::format("{} (case {}, seed {})", run.findings.front().message, run.case_name, run.seed);
  }
  if (runs.empty()) return "no runs";
  return sanitizers ? sanitizer_cause(*sanitizers) : "";
}

std::string host_refusal_of(const std::string& stderr_tail) {
  std::string last;
  std::istringstream in(stderr_tail);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) last = line;
  }
  return last.starts_with("kopt: ") ? ": " + last.substr(6) : "";
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
}  // namespace

std::string coverage_gap(const CheckReport& report) {
  std::vector<std::vector<int>> seen(report.cases.size(), std::vector<int>(report.seeds.size(), 0));
  for (const RunRecord& run : report.runs) {
    const auto seed = static_cast<std::size_t>(std::ranges::find(report.seeds, run.seed) - report.seeds.begin());
    if (run.case_index < 0 || static_cast<std::size_t>(run.case_index) >= seen.size() || seed >= report.seeds.size()) {
      return fmt::format("a run of case index {} and seed {}, which the check did not ask for", run.case_index, run.seed);
    }
    ++seen[static_cast<std::size_t>(run.case_index)][seed];
  }
  for (std::size_t c = 0; c < seen.size(); ++c) {
    for (std::size_t s = 0; s < seen[c].size(); ++s) {
      if (seen[c][s] != 1) {
        return fmt::format("{} runs of case {} and seed {}", seen[c][s], report.cases[c].name, report.seeds[s]);
      }
    }
  }
  return "";
}

namespace {

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

CheckReport run_check_once(const spec::Problem& problem, const CheckOptions& options, CheckContext& context) {
  CheckReport report{.kernel = problem.spec.kernel,
                     .problem_name = problem.spec.name,
                     .entry = problem.signature.entry,
                     .guesses = problem.guesses,
                     .seeds = seeds_of(options),
                     .cases = problem.cases};
  Stopwatch clock;
  create_folders(context.cache_dir / "tmp");

  // The kernel runs first and alone: its reference outputs do not exist yet while its code
  // runs, and they are compared here, in kopt's own process. Secret seeds' references are
  // never cached (no later kernel could use them, and they would only fill the disk).
  report.source_findings = spec::audit_kernel_source(problem.spec.kernel);
  report.strict = options.strict;
  if (report.strict && !report.source_findings.empty()) return report;  // nothing runs under --strict
  const bool secret = options.first_seed == 0;
  TempDir work("check", context.cache_dir / "tmp");
  const fs::path private_references = work.path() / "reference-cache";
  create_folders(private_references / "tmp");
  const bool python_reference = problem.spec.reference && is_python_reference(*problem.spec.reference);

  // With the target known up front, compile errors come before the GPU is needed.
  build::Compiler compiler(context.runner, build::find_nvcc(), context.cache_dir);
  report.nvcc_version = compiler.nvcc_version();
  std::optional<build::BuildOutcome> build;
  const std::string known_arch = resolve_arch(problem.spec.build.arch, options.arch, "");
  auto compile_kernel = [&](const std::string& arch) {
    return compiler.compile({.source = build::kernel_build_source(context.cache_dir, problem), .arch = arch, .flags = problem.spec.build.flags,
                             .defines = options.defines});
  };
  if (!known_arch.empty()) build = compile_kernel(known_arch);
  clock.lap(report.phase_seconds.compile);
  if (build && !build->ok()) return with_compile_failure(std::move(report), problem, *build->failure, known_arch);

  run::DeviceProbe probe;
  const run::ProbeFacts probe_facts = run::read_probe_facts(context.worker);
  bool probe_from_cache = false;
  try {
    run::CachedProbe cached_probe =
        run::probe_device_cached(context.runner, context.worker, work.path() / "probe", context.cache_dir, probe_facts);
    probe = std::move(cached_probe.probe);
    probe_from_cache = cached_probe.from_cache;
  } catch (const Error& no_device) {
    // A broken spec is the user's first problem, before a missing GPU: a Python reference
    // runs without one, and its failure (exit 2) is reported instead. No kernel has run, so
    // computing it here exposes nothing.
    if (python_reference && no_device.code() == ExitCode::environment) {
      ReferenceContext spec_check{context.runner, private_references, context.worker, true};
      reference_outputs(problem, report.seeds, spec_check, nullptr, known_arch);
    }
    throw;
  }
  clock.lap(report.phase_seconds.probe);
  // Every later worker of this context (the bench's timing and audit too) is confined when
  // the probe found that CUDA works so. Cached references and passed checks are trusted only
  // where no kernel could have rewritten them: fixed seeds, and confined workers.
  context.worker.confine_writes = probe.writes_confinable;
  const bool reuse_cache = !secret && probe.writes_confinable;
  ReferenceContext reference_context{context.runner, reuse_cache ? context.cache_dir : private_references,
                                     context.worker, !reuse_cache};
  reference_context.python_server = context.python_server;
  report.writes_confined = probe.writes_confinable;
  const run::DeviceInfo& device = probe.device;
  report.device = device;
  report.arch = resolve_arch(problem.spec.build.arch, options.arch, device.arch());
  if (!build) build = compile_kernel(report.arch);
  clock.lap(report.phase_seconds.compile);
  if (!build->ok()) {
    const std::string arch = report.arch;  // not read beside the move: the arguments' order is unspecified
    return with_compile_failure(std::move(report), problem, *build->failure, arch);
  }
  report.build = build->artifact;

  CheckJob job{.library = build->artifact->library,
               .signature = problem.signature,
               .cases = problem.cases,
               .seeds = report.seeds,
               .device = context.worker.device};
  // A passing check of this exact library, on these cases and seeds, on this device, is not
  // run again (only fixed seeds can repeat).
  const fs::path cached = context.cache_dir / "check" / (check_key(job, report.device, problem) + ".json");
  if (reuse_cache && path_exists(cached)) {
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
  if (problem.spec.reference) {
    job.dump_dirs = output_dirs(work.path() / "outputs", job.cases.size(), job.seeds.size());
    job.scratch_dumps = true;
  }
  // A .cu reference's worker starts once the kernel's has set CUDA up (its first progress
  // line: CUDA contexts are made one at a time), so that its own set-up overlaps the kernel's
  // calls; its job (the seeds, the kernel's digests) comes only after the kernel's worker has
  // exited (run::PrestartedWorker).
  std::optional<TempDir> reference_work;
  std::optional<run::PrestartedWorker> reference_worker;
  run::WorkerSettings worker = kernel_worker(context, problem, job.library, options, work.path());
  if (problem.spec.reference && !python_reference) {
    worker.on_progress = [&](const std::string&) {
      if (reference_worker) return;
      reference_work.emplace("reference-job", reference_context.cache_dir / "tmp");
      reference_worker.emplace(context.runner, reference_context.worker, reference_work->path());
      reference_context.prestarted = &*reference_worker;
    };
  }
  run::WorkerOutcome outcome = run::run_worker(context.runner, worker, check_job_to_json(job), work.path() / "check");
  clock.lap(report.phase_seconds.kernel_worker);
  if (!options.triton_cubins_out.empty()) report.triton_cubins = run::keep_triton_cubins(work.path() / "check", options.triton_cubins_out);
  if (context.after_kernel_worker) context.after_kernel_worker();
  report.phase_seconds.total = clock.seconds();
  if (!outcome.result) {
    report.failure = failure_from_worker(outcome, context.worker.time_limit, spec::is_python_kernel(problem.spec.kernel));
    return report;
  }
  run::rethrow_worker_error(*outcome.result);
  report.sandbox = probe.writes_confinable ? outcome.result->value("sandbox", "not reported by the worker")
                                           : "not confined: " + probe.sandbox;
  CheckJobResult result = check_result_from_json(*outcome.result);
  if (probe_from_cache && result.device.value("uuid", "") != device.uuid) {
    // Not the GPU the cached probe named (reconfigured since, without a reboot): probe afresh.
    run::forget_probe(context.cache_dir, context.worker, probe_facts);
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
  if (problem.spec.reference) {
    reference_context.kernel_digests = digests_by_case_and_seed(report);
    ReferenceOutputs reference = reference_outputs(problem, report.seeds, reference_context,
                                                   python_reference ? nullptr : &compiler, report.arch);
    report.reference = describe_reference(problem, reference);
    clock.lap(report.phase_seconds.reference);
    compare_with_reference_outputs(report, job, reference);
    judge_input_dependence(
        report,
        [&](std::size_t c, std::size_t seed, const spec::BoundBuffer& buffer) {
          return read_npy(reference.dirs[c][seed] / (buffer.name + ".npy")).data;
        },
        input_dependence_rule());
    clock.lap(report.phase_seconds.comparison);
  } else {
    report.reference = "none";
  }
  if (report.passed() && reuse_cache) {
    json kept = *outcome.result;
    kept["runs"] = json::array();
    for (const RunRecord& run : report.runs) kept["runs"].push_back(run_record_to_json(run));
    kept["warnings"] = report.warnings;
    write_file_atomic(cached, kept.dump());
  }
  report.phase_seconds.total = clock.seconds();
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

namespace {

json source_findings_to_json(const std::vector<spec::SourceFinding>& findings) {
  json out = json::array();
  for (const spec::SourceFinding& f : findings) {
    out.push_back({{"category", f.category}, {"what", f.what}, {"file", f.file}, {"line", f.line}, {"text", f.text}});
  }
  return out;
}

}  // namespace

json check_report_to_json(const CheckReport& report) {
  json runs = json::array();
  for (const RunRecord& run : report.runs) runs.push_back(run_record_to_json(run));
  json cases = json::array();
  for (const spec::BoundCase& c : report.cases) cases.push_back(run::case_to_json(c));
  json build = nullptr;
  if (report.build) {
    build = {{"library", report.build->library.string()},
             {"key", report.build->key},
             {"command", report.build->command},
             {"cache_hit", report.build->cache_hit},
             {"compile_seconds", report.build->compile_seconds},
             {"resources", report.build->resources}};
  }
  json failure = nullptr;
  if (report.failure) {
    failure = {{"kind", report.failure->kind}, {"message", report.failure->message}, {"detail", report.failure->detail}};
  }
  json document = {{"schema", "kopt.check/1"},
          {"kernel", report.kernel.string()},
          {"problem", report.problem_name},
          {"entry", report.entry},
          {"guesses", report.guesses},
          {"device", report.device},
          {"arch", report.arch},
          {"nvcc_version", report.nvcc_version},
          {"build", build},
          {"reference", report.reference},
          {"seeds", report.seeds},
          {"cases", cases},
          {"runs", runs},
          {"failure", failure},
          {"from_cache", report.from_cache},
          {"source_audit", source_findings_to_json(report.source_findings)},
          {"strict", report.strict},
          {"sandbox", report.sandbox},
          {"phase_seconds", {{"probe", report.phase_seconds.probe},
                             {"compile", report.phase_seconds.compile},
                             {"kernel_worker", report.phase_seconds.kernel_worker},
                             {"reference", report.phase_seconds.reference},
                             {"comparison", report.phase_seconds.comparison},
                             {"total", report.phase_seconds.total}}},
          {"worker_phase_seconds", check_worker_phases_to_json(report.worker_phases)},
          {"warnings", report.warnings},
          {"passed", report.passed()},
          {"cause", report.cause()}};
  if (report.sanitizers) document["sanitizers"] = sanitizer_runs_to_json(*report.sanitizers);
  return document;
}

}  // namespace kopt::verify
