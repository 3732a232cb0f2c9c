#include "kopt/loop/gpu_lab.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <future>
#include <thread>

#include "kopt/build/compiler.hpp"
#include "kopt/build/triton_bridge.hpp"
#include "kopt/catalog/method_catalog.hpp"
#include "kopt/catalog/method_evidence.hpp"
#include "kopt/catalog/sass_signature.hpp"
#include "kopt/core/error.hpp"
#include "kopt/core/files.hpp"
#include "kopt/core/parallel_for.hpp"
#include "kopt/discover/tune_space.hpp"
#include "kopt/doctor/survey.hpp"
#include "kopt/measure/peak_measurement.hpp"
#include "kopt/loop/flagged_outcomes.hpp"
#include "kopt/loop/screen_settings.hpp"
#include "kopt/profile/ncu_witness.hpp"
#include "kopt/profile/profiler.hpp"
#include "kopt/roofline/kernel_roofline.hpp"
#include "kopt/sass/kernel_sass.hpp"
#include "kopt/sass/sass_profile.hpp"
#include "kopt/spec/problem_work.hpp"
#include "kopt/spec/python_kernel.hpp"
#include "kopt/verify/reference.hpp"

namespace kopt::loop {
namespace fs = std::filesystem;

GpuLab::GpuLab(Context& context, GpuLabSettings settings)
    : runner_(context.runner, ledger_),
      settings_(std::move(settings)),
      context_{.runner = runner_, .tools = context.tools, .cache_dir = settings_.cache_dir, .clock = context.clock,
               .progress = settings_.worker.progress},
      // Through the caller's runner, not runner_: the ledger would count the server's whole life
      // as device time, idle hours included. It counts each request instead.
      python_server_(context.runner, settings_.cache_dir, verify::python_reference_time_limit(settings_.worker),
                     [this](bool working) {
                       if (working) {
                         ledger_.started(ProcessKind::device);
                       } else {
                         ledger_.finished(ProcessKind::device);
                       }
                     }) {}

spec::Problem GpuLab::load(const Variant& variant, bool timed_case_only) const {
  spec::Problem problem = spec::load_problem(variant.kernel, settings_.spec, settings_.dims);
  // A kernel copied into the run folder still finds the headers beside its original.
  for (const fs::path& dir : settings_.include_dirs) problem.spec.build.flags.push_back("-I" + dir.string());
  // The tuner's compile-options axis: the option's flags, into every build of this variant.
  for (std::string& flag : discover::compile_option_flags(variant.defines)) problem.spec.build.flags.push_back(std::move(flag));
  if (timed_case_only) {
    const spec::BoundCase kept = *problem.find_case(timed_case_name(problem));
    problem.cases = {kept};
  }
  return problem;
}

std::string GpuLab::timed_case_name(const spec::Problem& problem) const {
  if (settings_.timed_case.empty()) return measure::perf_case(problem).name;
  if (problem.find_case(settings_.timed_case) == nullptr) {
    throw input_error("the problem has no case named \"{}\"", settings_.timed_case);
  }
  return settings_.timed_case;
}

std::unique_ptr<CompileQueue> GpuLab::compile_ahead(const std::vector<Variant>& variants, const std::string& arch) {
  const unsigned cores = usable_cores();
  const std::size_t width = settings_.parallel_compiles > 0 ? static_cast<std::size_t>(settings_.parallel_compiles) : cores;
  const fs::path nvcc = context_.tools.path(Tool::nvcc);  // looked for here: the toolchain is not shared by threads
  using Job = std::pair<spec::Problem, std::vector<std::pair<std::string, std::string>>>;  // problem, defines
  std::vector<Job> jobs;
  for (const Variant& variant : variants) {
    std::vector<std::pair<std::string, std::string>> defines = settings_.bench.check.defines;
    for (const auto& define : variant.defines) defines.push_back(define);
    jobs.emplace_back(load(variant, false), std::move(defines));
  }
  // The compile cache makes each later check find its library built; failures are reported
  // by that check, with the compiler's message.
  return compile_queue_of<Job>(std::move(jobs), width, [this, arch, nvcc](const Job& job) {
    SystemProcessRunner system;  // one per thread: no shared state
    TimedProcessRunner runner(system, ledger_);
    build::Compiler compiler(runner, nvcc, settings_.cache_dir);
    // What the check builds: the kernel, or a Triton kernel's bridge (build/triton_bridge.hpp).
    compiler.compile({.source = build::kernel_build_source(settings_.cache_dir, job.first), .arch = arch,
                      .flags = job.first.spec.build.flags, .defines = job.second});
  });
}

// The device, arch and nvcc the checks used, and `kopt doctor`'s survey of the machine (its
// Nsight Compute probe left to the run's own profile step, which reports what ncu could read).
nlohmann::json GpuLab::environment() {
  nlohmann::json env = device_;
  const doctor::Survey survey =
      doctor::survey_machine(context_,
                             {.worker = settings_.worker,
                              .skip_ncu = "the run's profile step tries it",
                              .import_python_packages = false},  // no torch imported for its version: seconds
                             doctor::cached_worker_gpu_probe(context_, settings_.worker));
  env["survey"] = doctor::survey_json(survey);
  return env;
}

namespace {

// A variant's check, shown on the progress line as "iter1/b3 (4/9): verifying: ...".
verify::CheckReport check_shown(const spec::Problem& problem, const verify::CheckOptions& options,
                                verify::CheckContext& context, std::string shown_as) {
  ProgressScope shown(context.worker.progress, std::move(shown_as));
  return verify::run_check(problem, options, context);
}

// The timing worker runs every variant in one process, so one that faults there (having
// passed its check) would take the others' samples with it. Then each is timed alone to find
// the ones that fault, which become failed outcomes, and the rest are timed interleaved again.
// `checks` are the variants' own, made just before (one per kernel): the bench times on them.
measure::BenchReport bench_surviving_faults(std::vector<spec::Problem> kernels, measure::BenchOptions options,
                                            const std::vector<verify::CheckReport>& checks,
                                            verify::CheckContext& context, std::vector<VariantOutcome>& outcomes) {
  try {
    return measure::run_bench(kernels, options, context, &checks);
  } catch (const Error& e) {
    if (e.code() != ExitCode::kernel_failed || kernels.size() < 2) throw;
  }
  measure::BenchOptions survivors = options;
  survivors.kernel_defines.clear();
  survivors.labels.clear();
  std::vector<spec::Problem> kept;
  std::vector<verify::CheckReport> kept_checks;
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    measure::BenchOptions alone = options;
    alone.kernel_defines = {options.kernel_defines.at(i)};
    alone.labels = {options.labels.at(i)};
    alone.time_reference = false;
    alone.settings.stopping.min_samples = 2;
    alone.settings.stopping.min_gpu_seconds = 0;
    try {
      const std::vector<verify::CheckReport> own = {checks.at(i)};
      measure::run_bench({kernels[i]}, alone, context, &own);
    } catch (const Error& e) {
      if (e.code() != ExitCode::kernel_failed || i == 0) throw;
      const auto slot = std::ranges::find(outcomes, options.labels[i], &VariantOutcome::label);
      if (slot != outcomes.end()) *slot = failed_outcome(options.labels[i], std::string("faulted while timed: ") + e.what());
      continue;
    }
    kept.push_back(kernels[i]);
    kept_checks.push_back(checks.at(i));
    survivors.kernel_defines.push_back(options.kernel_defines[i]);
    survivors.labels.push_back(options.labels[i]);
  }
  try {
    return measure::run_bench(kept, survivors, context, &kept_checks);
  } catch (const Error& e) {
    if (e.code() != ExitCode::kernel_failed) throw;
    throw Error(ExitCode::kernel_failed,
                fmt::format("the variants fault only when timed together in one process (state shared between their "
                            "libraries?): {}", e.what()));
  }
}

// A failed build is the check's to report, with the compiler's message; a queue that does not
// hold the variant is kopt's own error, and is not hidden.
void wait_quietly(CompileQueue& compiles, std::size_t index) {
  try {
    compiles.wait(index);
  } catch (const std::logic_error&) {
    throw;
  } catch (const std::exception&) {
  }
}

}  // namespace

Measurement GpuLab::measure(const MeasureRequest& request) {
  measure::BenchOptions options = settings_.bench;
  options.time_reference = request.time_reference;
  return checked_and_timed(request, options, false);
}

// The first look: the timed case only, one fixed seed (its reference outputs computed once,
// then cached for every branch), few samples, every variant timed in one worker.
Measurement GpuLab::first_look(const MeasureRequest& request) {
  const ScreenSettings& look = screen_settings();
  measure::BenchOptions options = settings_.bench;
  options.time_reference = false;
  options.timed_cases = measure::TimedCases::perf_case;
  options.check.seed_count = 1;
  options.check.first_seed = look.first_look_seed;
  options.settings.stopping.min_samples = static_cast<std::size_t>(look.first_look_min_samples);
  options.settings.stopping.target_half_width = look.first_look_half_width;
  options.settings.stopping.timeout_seconds = look.first_look_max_seconds;
  options.settings.stopping.min_gpu_seconds = 0;
  options.settings.max_calls_per_sample = look.first_look_max_calls_per_sample;
  // No verdict rests on the first look: a branch it passes on is timed again, with the audit
  // of its timed calls, before it can win (docs/loop.md, "The staged screen").
  options.audit_timed_calls = false;
  return checked_and_timed(request, options, true);
}

// Checks every variant (all cases, or the timed case only), then times the passing ones
// interleaved in one worker. The variants after the first compile ahead of their checks.
Measurement GpuLab::checked_and_timed(const MeasureRequest& request, measure::BenchOptions options,
                                      bool timed_case_only) {
  if (request.variants.empty()) throw input_error("nothing to measure");
  verify::CheckContext context{runner_, settings_.cache_dir, settings_.worker};
  // One Python runner for a .py reference serves every check of this measurement and its bench,
  // and the lab's later measurements: Python, numpy and torch start once, not once per variant
  // or per measurement (verify/kept_reference_server.hpp).
  context.python_server = python_server_.serve(load(request.variants.front(), timed_case_only));
  Measurement result;
  std::vector<spec::Problem> passing;
  std::vector<verify::CheckReport> passed_checks;
  // A full measurement's passing checks, for the profile step (a first look's, on one fixed
  // seed and one case, prove less than the profile's own check would).
  std::vector<std::pair<Variant, profile::PassedCheck>> for_profile;
  const verify::CheckOptions check_base = options.check;
  // Known from an earlier measurement, the arch lets the others compile while the first is checked.
  std::unique_ptr<CompileQueue> compiles;
  if (!arch_.empty() && request.variants.size() > 1) {
    compiles = compile_ahead({request.variants.begin() + 1, request.variants.end()}, arch_);
  }
  for (std::size_t i = 0; i < request.variants.size(); ++i) {
    const Variant& variant = request.variants[i];
    const verify::CheckOptions check = variant_check_options(check_base, variant);
    if (compiles && i > 0) wait_quietly(*compiles, i - 1);
    const std::string source_hash = variant_source_hash(variant);  // read before the check: what it ran
    const verify::CheckReport report = check_shown(load(variant, timed_case_only), check, context,
                                                  fmt::format("{} ({}/{})", variant.label, i + 1, request.variants.size()));
    if (arch_.empty() && !report.arch.empty()) {
      arch_ = report.arch;
      device_ = {{"device", report.device}, {"arch", report.arch}, {"nvcc", report.nvcc_version}};
    }
    // The first check tells the arch; the others compile ahead while the GPU checks.
    if (!compiles && i == 0 && !arch_.empty() && request.variants.size() > 1) {
      compiles = compile_ahead({request.variants.begin() + 1, request.variants.end()}, arch_);
    }
    if (!report.passed()) {
      if (i == 0) throw Error(ExitCode::kernel_failed, fmt::format("{} fails: {}", variant.label, report.cause()));
      result.outcomes.push_back(failed_outcome(variant.label, report.cause()));
      continue;
    }
    result.outcomes.push_back(failed_outcome(variant.label, "not timed"));
    passing.push_back(load(variant, !request.every_case));
    passed_checks.push_back(report);
    std::optional<profile::PassedCheck> kept;
    if (!timed_case_only) kept = profile::passed_check_of(report, check, source_hash, settings_.worker.device);
    if (kept) for_profile.emplace_back(variant, std::move(*kept));
    options.kernel_defines.push_back(variant.define_list());
    options.labels.push_back(variant.label);
  }
  result.gpu = gpu_identity(device_.value("device", nlohmann::json()));
  if (request.every_case) options.timed_cases = measure::TimedCases::all;
  measure::BenchReport bench = bench_surviving_faults(passing, options, passed_checks, context, result.outcomes);
  // Indices line up only when no variant was dropped for faulting while timed. Nsight Compute
  // is not pointed at a Triton kernel's Python-hosted worker yet (docs/triton.md).
  const bool triton = std::ranges::any_of(passing, [](const spec::Problem& p) { return spec::is_python_kernel(p.spec.kernel); });
  if (request.witness_ncu && !triton && !bench.variants.empty() && bench.checks.size() == passing.size()) {
    profile::add_ncu_witness(bench, passing, options, context);
  }
  result.detail = measure::bench_report_to_json(bench);
  if (!bench.passed() && bench.variants.empty()) {
    throw Error(ExitCode::kernel_failed,
                fmt::format("timing failed: {}", bench.flags.empty() ? "no samples" : bench.flags.front()));
  }
  // The first variant passed its check (else it threw above), so `passing` holds it.
  judge_outcomes(bench, timed_case_name(passing.front()), result);
  checked_.keep_passed(for_profile, result.outcomes);
  return result;
}

// What `kopt roofline` does, on the variant's timed case: counters where ncu reads them, else
// the analytic roofline. A kernel that fails, or a device without known ceilings, is evidence
// missing (the plan degrades), not an error of the loop.
Evidence GpuLab::profile(const Variant& variant, const fs::path& dir) {
  const spec::Problem problem = load(variant, true);
  verify::CheckContext context{runner_, settings_.cache_dir, settings_.worker};
  context.python_server = python_server_.serve(problem);
  // The check its last measurement in this process passed, where there was one: the profile
  // stands on it if it is of exactly the library it would check (profile/passed_check.hpp).
  const profile::ProfileOptions options{.check = variant_check_options(settings_.bench.check, variant),
                                        .ncu = settings_.ncu,
                                        .out_dir = dir,
                                        .checked = checked_.find(variant)};
  roofline::RooflineProbes probes = roofline::gpu_probes(context, settings_.bench);
  roofline::KernelRoofline result;
  try {
    result = roofline::kernel_roofline({.problem = problem, .profile = options}, probes);
  } catch (const Error& e) {
    if (e.code() != ExitCode::kernel_failed && e.code() != ExitCode::environment) throw;
    return {.ok = false, .reason = (e.code() == ExitCode::kernel_failed ? "the profile failed: " : "") + std::string(e.what())};
  }
  const profile::ProfileReport& report = *result.profile;
  if (!result.analysis) return {.ok = false, .reason = report.failure.value_or(report.reason)};
  return {.ok = report.evidence(),
          .reason = result.analysis->reason.value_or(""),
          .roofline = roofline::roofline_analysis_json(*result.analysis)};
}

namespace {

// One row per method asked: its signature's status in the evidence, or `not_verifiable` with
// `why_not` when there is no machine code to look in.
std::vector<MethodSass> method_sass_rows(const std::vector<std::string>& methods,
                                         const std::vector<catalog::MethodEvidence>& evidence, const std::string& why_not) {
  std::vector<MethodSass> out;
  for (const std::string& id : methods) {
    const auto found = std::ranges::find(evidence, id, &catalog::MethodEvidence::method);
    if (found == evidence.end()) {
      if (!why_not.empty()) out.push_back({id, "not_verifiable", why_not});
      continue;
    }
    const std::string status = !found->switched_on ? "switched_off" : std::string(catalog::to_string(found->match.status));
    std::string detail = found->match.reason;
    for (const std::string& e : found->match.evidence) detail += (detail.empty() ? "" : "; ") + e;
    out.push_back({id, status, detail});
  }
  return out;
}

}  // namespace

// The methods' signatures in the variant's machine code, as `kopt sass --method` finds them,
// compiled for the arch the loop's checks compiled for (before any check, the spec's or
// --arch, else the GPU's own, probed).
std::vector<MethodSass> GpuLab::sass(const Variant& variant, const std::vector<std::string>& methods) {
  if (methods.empty()) return {};
  const spec::Problem problem = load(variant, true);
  std::vector<std::pair<std::string, std::string>> defines = settings_.bench.check.defines;
  for (const auto& define : variant.defines) defines.push_back(define);
  // The GPU's arch is asked once: arch_ holds it from the first check or SASS step on.
  const sass::KernelSassOutcome outcome = sass::problem_sass(
      context_, problem, defines, !arch_.empty() ? std::optional(arch_) : settings_.bench.check.arch, settings_.worker);
  if (!outcome.ok()) return method_sass_rows(methods, {}, outcome.failure);
  if (arch_.empty() && !settings_.bench.check.arch && problem.spec.build.arch.empty()) arch_ = outcome.sass->arch;
  return method_sass_rows(methods, catalog::check_kernel_methods(problem.spec.kernel, methods, defines,
                                                                 outcome.sass->profile.functions,
                                                                 catalog::arch_number(outcome.sass->arch)),
                          "");
}

}  // namespace kopt::loop
