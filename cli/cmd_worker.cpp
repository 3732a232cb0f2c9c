// kopt worker JOB.json RESULT.json: runs one job in this (child) process. Started by kopt
// itself; a kernel that faults, hangs or crashes takes only this process down.
#include <nlohmann/json.hpp>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <vector>

#include "command.hpp"
#include "kopt/core/error.hpp"
#include "kopt/core/files.hpp"
#include "kopt/measure/bench_job.hpp"
#include "kopt/measure/peak_measurement.hpp"
#include "kopt/profile/ncu_probe.hpp"
#include "kopt/profile/profile_job.hpp"
#include "kopt/run/device_buffer.hpp"
#include "kopt/run/device_probe.hpp"
#include "kopt/run/kernel_worker_sandbox.hpp"
#include "kopt/run/worker_launcher.hpp"
#include "kopt/verify/check_job.hpp"

namespace kopt::cli {
namespace {

struct WorkerConfig {
  std::string job;
  std::string result;
  int await_device = -1;  // >= 0: started before its job (run::PrestartedWorker)
};

nlohmann::json execute_job(const nlohmann::json& job) {
  const std::string kind = job.value("kind", "");
  if (kind == "probe") return run::execute_probe_job(job);
  if (kind == "cancel") return {{"kind", "cancel"}};  // a prestarted worker not needed after all
  if (kind == "check") return verify::check_result_to_json(verify::execute_check_job(verify::check_job_from_json(job)));
  if (kind == "bench") return measure::bench_result_to_json(measure::execute_bench_job(measure::bench_job_from_json(job)));
  if (kind == "profile") return profile::execute_profile_job(profile::profile_job_from_json(job));
  if (kind == "ncu_probe") return profile::execute_ncu_probe_job(job);
  if (kind == "peaks") return measure::execute_peaks_job(job);
  throw input_error("unknown worker job kind \"{}\"", kind);
}

// The job file goes as soon as it is read, before any kernel library is loaded: a kernel
// cannot read its seeds or the nonce from it. The nonce goes back with the result; then the
// process ends at once, so no exit handler or destructor of a kernel library runs after the
// result is written (docs/integrity.md).
[[noreturn]] void finish(const WorkerConfig& config, nlohmann::json result, const std::string& nonce) {
  result["nonce"] = nonce;
  write_file_atomic(config.result, result.dump(2));
  std::fflush(stdout);
  std::fflush(stderr);
  std::_Exit(0);
}

}  // namespace

int run_worker_files(const std::string& job_file, const std::string& result_file, int await_device) {
  const WorkerConfig config{job_file, result_file, await_device};
  nlohmann::json result;
  nlohmann::json job;
  std::string nonce;
  if (config.await_device >= 0) run::await_prestarted_job(config.job, config.await_device);
  try {
    job = nlohmann::json::parse(read_file(config.job));
    std::filesystem::remove(config.job);
    if (job.is_object() && job.contains("nonce")) {
      nonce = job.at("nonce").get<std::string>();
      job.erase("nonce");
    }
    const bool confine = job.value("confine_writes", false);
    job.erase("confine_writes");
    std::optional<run::WriteSandbox> sandbox;
    if (confine && run::job_runs_a_kernel(job)) sandbox = run::confine_kernel_worker(config.result, job);
    result = execute_job(job);
    if (sandbox) result["sandbox"] = sandbox->description;
    if (job.value("kind", "") == "probe" && result.value("kind", "") == "probe")
      result["sandbox"] = run::try_confined_cuda(config.result, job);
  } catch (const Error& e) {
    result = run::worker_error_result(static_cast<int>(e.code()), e.what());
  } catch (const run::CudaFailure& failure) {
    // Outside a check (which records faults itself), a CUDA failure while solve runs is the
    // kernel's; before any kernel ran (a probe) it is the environment's.
    const std::string kind = job.value("kind", "");
    const bool kernel_ran = kind == "check" || kind == "bench" || kind == "profile";
    result = run::worker_error_result(static_cast<int>(kernel_ran ? ExitCode::kernel_failed : ExitCode::environment),
                                      (kernel_ran ? "solve faulted: " : "") + failure.message + " (" + failure.call + ")");
  } catch (const nlohmann::json::exception& e) {
    result = run::worker_error_result(static_cast<int>(ExitCode::bad_input), std::string("malformed job: ") + e.what());
  }
  finish(config, std::move(result), nonce);
}

Command worker_command() {
  return {"worker", "Run one job file in this process (used by kopt itself)", [](CLI::App& app) {
            auto config = std::make_shared<WorkerConfig>();
            app.add_option("JOB", config->job, "Job file")->required();
            app.add_option("RESULT", config->result, "Where to write the result")->required();
            app.add_option("--await-device", config->await_device,
                           "Set CUDA up on this device, then wait for the job file to appear");
            app.group("");  // internal: hidden from --help
            return [config] { return run_worker_files(config->job, config->result, config->await_device); };
          }};
}

}  // namespace kopt::cli
