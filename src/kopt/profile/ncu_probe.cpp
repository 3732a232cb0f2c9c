#include "kopt/profile/ncu_probe.hpp"

#include <cuda_runtime.h>
#include <dlfcn.h>
#include <fmt/format.h>
#include <nvtx3/nvToolsExt.h>

#include "kopt/build/compiler.hpp"
#include "kopt/core/embedded_files.hpp"
#include "kopt/core/error.hpp"
#include "kopt/core/file_queries.hpp"
#include "kopt/core/files.hpp"
#include "kopt/profile/ncu_csv.hpp"
#include "kopt/profile/nsight_compute.hpp"
#include "kopt/profile/profile_job.hpp"
#include "kopt/run/device_buffer.hpp"
#include "kopt/run/worker_launcher.hpp"

namespace kopt::profile {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr std::string_view kProbeMetric = "gpu__time_duration.sum";

fs::path build_probe_library(verify::CheckContext& context, const run::DeviceInfo& device) {
  const fs::path source = context.cache_dir / "runtime" / "kopt_ncu_probe.cu";
  create_folders(source.parent_path());
  write_file_atomic(source, data_file("runtime/kopt_ncu_probe.cu"));
  build::Compiler compiler(context.runner, build::find_nvcc(), context.cache_dir);
  build::BuildOutcome outcome = compiler.compile({.source = source, .arch = device.arch()});
  if (!outcome.ok()) throw environment_error("nvcc could not build kopt's ncu probe: {}", outcome.failure->first_error);
  return outcome.artifact->library;
}

// The probe kernel's duration as the report gives it; empty when it is not there.
std::optional<double> probed_duration(ProcessRunner& runner, const fs::path& ncu, const fs::path& report) {
  if (!path_exists(report)) return std::nullopt;
  NcuReport parsed = parse_ncu_raw_csv(export_raw_csv(runner, ncu, report));
  if (parsed.launches.size() != 1) return std::nullopt;
  const MetricValue* duration = parsed.launches.front().find(kProbeMetric);
  if (duration == nullptr || !duration->present) return std::nullopt;
  return duration->value;
}

}  // namespace

NcuProbe probe_ncu(verify::CheckContext& context, const run::DeviceInfo& device) {
  NcuProbe probe;
  fs::path ncu;
  try {
    ncu = find_ncu();
    probe.found = true;
    probe.path = ncu.string();
    probe.version = ncu_version(context.runner, ncu);
  } catch (const Error& e) {
    probe.detail = e.what();
    return probe;
  }
  TempDir work("ncu-probe", context.cache_dir / "tmp");
  const fs::path report = work.path() / "probe.ncu-rep";
  run::WorkerSettings worker = context.worker;
  worker.launcher = ncu_command_prefix(
      ncu, {.section_set = "", .clock_control = "none", .import_source = false, .metrics = {std::string(kProbeMetric)}},
      report);
  worker.time_limit = std::chrono::seconds(180);
  const json job = {{"kind", "ncu_probe"}, {"library", build_probe_library(context, device).string()},
                    {"device", device.ordinal}};
  run::WorkerOutcome outcome = run::run_worker(context.runner, worker, job, work.path() / "job");
  std::optional<double> duration;
  if (outcome.result) duration = probed_duration(context.runner, ncu, report);
  if (duration) {
    probe.counters = true;
    probe.detail = fmt::format("profiled a test kernel: {} = {:.0f} ns", kProbeMetric, *duration);
    return probe;
  }
  std::string cause = ncu_failure_cause(outcome.output);
  if (cause.empty()) {
    cause = fmt::format("ncu could not profile a test kernel ({}): {}",
                        outcome.result ? "no counters in the report" : outcome.failure, outcome.stderr_tail);
  }
  probe.detail = cause;
  return probe;
}

json ncu_probe_to_json(const NcuProbe& probe) {
  return {{"found", probe.found}, {"counters", probe.counters}, {"path", probe.path}, {"version", probe.version},
          {"detail", probe.detail}};
}

json execute_ncu_probe_job(const json& job) {
  run::check_cuda(cudaSetDevice(job.at("device").get<int>()), "cudaSetDevice");
  const std::string library = job.at("library");
  void* handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) throw environment_error("cannot load {}: {}", library, dlerror());
  auto probe = reinterpret_cast<int (*)()>(dlsym(handle, "kopt_ncu_probe"));
  if (probe == nullptr) throw environment_error("{} has no kopt_ncu_probe", library);
  nvtxRangePushA(std::string(kProfileRange).c_str());
  const int status = probe();
  nvtxRangePop();
  if (status != 0) throw environment_error("the ncu probe kernel failed with CUDA error {}", status);
  return {{"kind", "ncu_probe"}, {"ok", true}};
}

}  // namespace kopt::profile
