#include "kopt/profile/profiler.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>

#include "kopt/core/clock.hpp"
#include "kopt/core/error.hpp"
#include "kopt/core/file_queries.hpp"
#include "kopt/core/files.hpp"
#include "kopt/profile/profile_job.hpp"
#include "kopt/run/device_probe.hpp"
#include "kopt/run/gpu_lock.hpp"
#include "kopt/spec/problem_work.hpp"
#include "kopt/run/worker_launcher.hpp"
#include "kopt/run/triton_worker.hpp"

namespace kopt::profile {
namespace fs = std::filesystem;
using nlohmann::json;

const ProfiledLaunch* ProfileReport::dominant() const {
  if (launches.empty()) return nullptr;
  return &*std::max_element(launches.begin(), launches.end(), [](const ProfiledLaunch& a, const ProfiledLaunch& b) {
    return a.concepts.duration_s < b.concepts.duration_s;
  });
}

namespace {

const spec::BoundCase& chosen_case(const spec::Problem& problem, const std::string& name) {
  if (name.empty()) return problem.cases.front();
  if (const spec::BoundCase* found = problem.find_case(name)) return *found;
  throw input_error("no case named \"{}\"", name);
}

// "sm_90a" → "sm_90": the metric map is per architecture family.
std::string metric_arch(const std::string& arch) {
  std::string base = arch;
  while (!base.empty() && std::isalpha(static_cast<unsigned char>(base.back()))) base.pop_back();
  return base;
}

void degrade(ProfileReport& report, std::string reason) {
  report.degraded = true;
  report.reason = std::move(reason);
}

// Runs the profiled worker; returns false (with the report saying why) when it produced no
// report to read.
bool profile_in_worker(ProfileReport& report, const spec::Problem& problem, const ProfileOptions& options,
                       verify::CheckContext& context, const fs::path& ncu) {
  const ProfileJob job{.library = report.check.build->library,
                       .signature = problem.signature,
                       .bound_case = chosen_case(problem, options.case_name),
                       .seed = options.check.first_seed,
                       .warmup_calls = options.warmup_calls,
                       .device = context.worker.device};
  TempDir work("profile", context.cache_dir / "tmp");
  // A Triton kernel runs in its Python-hosted worker (run/triton_worker.hpp), under ncu as a
  // .cu kernel's does: the NVTX range is pushed on the thread that calls solve, which is the
  // thread whose Python launches Triton's kernels, so only they are profiled.
  run::WorkerSettings worker =
      run::triton_worker_settings(context.runner, context.worker, find_python, context.cache_dir,
                                  run::triton_bridges({problem}, {report.check.build->library}, {options.check.defines}),
                                  work.path() / "triton_plan.json");
  const std::vector<std::string> ncu_words = ncu_command_prefix(ncu, options.ncu, report.report_file);
  worker.launcher.insert(worker.launcher.begin(), ncu_words.begin(), ncu_words.end());
  // Kernel replay runs each kernel once per pass of the full set (~40 passes).
  worker.time_limit = std::max(worker.time_limit, std::chrono::duration<double>(900));
  const HostLock gpu = run::lock_gpu(report.check.device, context.worker.device);
  run::WorkerOutcome outcome = run::run_worker(context.runner, worker, profile_job_to_json(job), work.path());
  const std::string cause = ncu_failure_cause(outcome.output);
  if (!outcome.result) {
    if (!cause.empty()) {
      degrade(report, cause);
    } else {
      report.failure = fmt::format("solve failed under Nsight Compute: the worker {}{}", outcome.failure,
                                   outcome.stderr_tail.empty() ? "" : ": " + outcome.stderr_tail);
    }
    return false;
  }
  if (const json& r = *outcome.result; r.value("kind", "") == "error") {
    if (r.value("exit_code", 0) != static_cast<int>(ExitCode::kernel_failed)) run::rethrow_worker_error(r);
    report.failure = r.value("message", std::string("the worker reported an error"));
    return false;
  }
  if (!path_exists(report.report_file)) {
    degrade(report, cause.empty() ? "ncu wrote no report: " + outcome.stderr_tail : cause);
    return false;
  }
  return true;
}

// The check the profile stands on: the caller's where it is of exactly this library (a second
// secret-seeded check of it on the same GPU would prove nothing more), else one run here.
void check_or_reuse(ProfileReport& report, const spec::Problem& problem, const ProfileOptions& options,
                    verify::CheckContext& context) {
  if (options.checked) {
    report.check_reuse_refused = reuse_refusal(*options.checked, problem, options.check, context);
    if (report.check_reuse_refused.empty()) {
      report.check = options.checked->report;
      report.check.kernel = problem.spec.kernel;  // the same source (its hash was compared), by the name profiled
      report.check_reused = true;
      return;
    }
  }
  report.check = verify::run_check(problem, options.check, context);
}

}  // namespace

void read_raw_page(ProfileReport& report, const std::string& csv_text, int top_k) {
  NcuReport parsed = parse_ncu_raw_csv(csv_text);
  if (parsed.launches.empty()) {
    degrade(report, "the report holds no kernel launch: solve launched no kernel inside kopt's NVTX range");
    return;
  }
  report.map = load_metric_map(report.ncu_version, metric_arch(report.arch));
  if (!report.map) {
    degrade(report, fmt::format("data/metrics.toml has no metric map for Nsight Compute {} on {}", report.ncu_version,
                                metric_arch(report.arch)));
    return;
  }
  std::vector<LaunchConcepts> concepts;
  for (KernelLaunch& launch : parsed.launches) {
    ProfiledLaunch profiled{.launch = launch, .concepts = launch_concepts(*report.map, launch)};
    profiled.top = rank_top_metrics(profiled.launch, *report.map, profiled.concepts.concepts, top_k);
    concepts.push_back(profiled.concepts);
    report.launches.push_back(std::move(profiled));
  }
  report.whole = aggregate_launches(*report.map, concepts);
  for (ProfiledLaunch& l : report.launches) {
    l.share = report.whole->duration_s > 0 ? l.concepts.duration_s / report.whole->duration_s : 0;
  }
}

ProfileReport run_profile(const spec::Problem& problem, const ProfileOptions& options, verify::CheckContext& context) {
  Stopwatch phase;  // its laps are the phases, its whole reading the wall time
  ProfileReport report;
  check_or_reuse(report, problem, options, context);
  report.phases.check = phase.lap();
  report.case_name = chosen_case(problem, options.case_name).name;
  report.dtype = spec::first_output_dtype(chosen_case(problem, options.case_name)).name;
  report.arch = report.check.arch;
  report.clock_control = options.ncu.clock_control;
  report.section_set = options.ncu.section_set;
  if (!report.check.passed()) return report;

  fs::path ncu;
  try {
    ncu = find_ncu();
    report.ncu_path = ncu.string();
    report.ncu_version = ncu_version(context.runner, ncu);
    report.phases.ncu_version = phase.lap();
  } catch (const Error& e) {
    degrade(report, e.what());
    return report;
  }
  create_folders(options.out_dir);
  report.report_file = options.out_dir / "profile.ncu-rep";
  report.csv_file = options.out_dir / "raw.csv";
  remove_file(report.report_file);  // a stale report must never pass for this one
  const bool profiled = profile_in_worker(report, problem, options, context, ncu);
  report.phases.ncu_run = phase.lap();
  if (profiled) {
    const std::string csv = export_raw_csv(context.runner, ncu, report.report_file);
    write_file_atomic(report.csv_file, csv);
    report.phases.export_csv = phase.lap();
    read_raw_page(report, csv, options.top_k);
    report.phases.parse = phase.lap();
  }
  report.wall_seconds = phase.seconds();
  return report;
}

namespace {

json concepts_json(const std::map<std::string, ResolvedConcept>& resolved) {
  json out = json::object();
  for (const auto& [name, c] : resolved) {
    out[name] = {{"value", c.value ? json(*c.value) : json(nullptr)},
                 {"kind", to_string(c.spec->kind)},
                 {"bad", to_string(c.spec->bad)},
                 {"axis", c.spec->axis},
                 {"missing", c.missing}};
  }
  return out;
}

json whole_json(const MetricMap& map, const WholeCall& whole) {
  json concepts = json::object();
  for (const auto& [name, value] : whole.values) {
    const ConceptSpec* spec = map.find(name);
    auto missing = whole.missing.find(name);
    concepts[name] = {{"value", value ? json(*value) : json(nullptr)},
                      {"kind", spec ? to_string(spec->kind) : "ratio"},
                      {"bad", spec ? to_string(spec->bad) : "none"},
                      {"axis", spec ? spec->axis : ""},
                      {"missing", missing == whole.missing.end() ? std::vector<std::string>{} : missing->second}};
  }
  return {{"duration_s", whole.duration_s}, {"concepts", concepts}};
}

json launch_json(const ProfiledLaunch& l) {
  const Dim3& g = l.launch.grid;
  const Dim3& b = l.launch.block;
  return {{"name", l.launch.kernel_name},
          {"id", l.launch.id},
          {"grid", {g.x, g.y, g.z}},
          {"block", {b.x, b.y, b.z}},
          {"duration_s", l.concepts.duration_s},
          {"share", l.share},
          {"concepts", concepts_json(l.concepts.concepts)}};
}

}  // namespace

json profile_report_to_json(const ProfileReport& report) {
  json kernels = json::array();
  json whole = nullptr;
  if (report.map) {
    for (const ProfiledLaunch& l : report.launches) kernels.push_back(launch_json(l));
    if (report.whole) whole = whole_json(*report.map, *report.whole);
  }
  return {{"schema", kProfileSchema},
          {"kopt_version", KOPT_VERSION},
          {"kernel", report.check.kernel.string()},
          {"problem", report.check.problem_name},
          {"case", report.case_name},
          {"dtype", report.dtype},
          {"device", report.check.device},
          {"passed_check", report.check.passed()},
          {"check_reused", report.check_reused},
          {"check_reuse_refused", report.check_reuse_refused.empty() ? json(nullptr) : json(report.check_reuse_refused)},
          {"check_failure", report.check.passed() ? json(nullptr) : json(report.check.cause())},
          {"failure", report.failure ? json(*report.failure) : json(nullptr)},
          {"degraded", report.degraded || !report.whole},
          {"reason", report.reason.empty() ? json(nullptr) : json(report.reason)},
          {"ncu_path", report.ncu_path},
          {"ncu_version", report.ncu_version},
          {"arch", report.arch},
          {"clock_control", report.clock_control},
          {"section_set", report.section_set},
          {"report_file", report.report_file.empty() ? json(nullptr) : json(report.report_file.filename().string())},
          {"csv_file", report.csv_file.empty() ? json(nullptr) : json(report.csv_file.filename().string())},
          {"kernels", kernels},
          {"whole", whole},
          {"wall_seconds", report.wall_seconds},
          {"phase_seconds",
           {{"check", report.phases.check}, {"ncu_version", report.phases.ncu_version},
            {"ncu_run", report.phases.ncu_run}, {"export_csv", report.phases.export_csv},
            {"parse", report.phases.parse}}}};
}

json ncu_top_document(const ProfileReport& report) {
  const ProfiledLaunch* dominant = report.dominant();
  if (dominant == nullptr) return nullptr;
  json document = to_json(dominant->top);
  document["kernel"] = dominant->launch.kernel_name;
  document["share"] = dominant->share;
  json per_launch = json::array();
  for (const ProfiledLaunch& l : report.launches) {
    json top = to_json(l.top);
    top["kernel"] = l.launch.kernel_name;
    top["id"] = l.launch.id;
    top["share"] = l.share;
    per_launch.push_back(std::move(top));
  }
  document["launches"] = std::move(per_launch);
  return document;
}

void write_profile_files(const ProfileReport& report, const fs::path& dir) {
  create_folders(dir);
  write_file_atomic(dir / "profile.json", profile_report_to_json(report).dump(2));
  if (report.evidence()) write_file_atomic(dir / "ncu_top.json", ncu_top_document(report).dump(2));
}

}  // namespace kopt::profile
