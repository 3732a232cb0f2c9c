#include "kopt/worker/job_file.hpp"

#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>

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

namespace kopt::worker {
namespace {

using json = nlohmann::json;

// What the job file held, taken apart: the nonce goes back with the result, the confinement
// is the worker's business, not the job's.
struct ReadJob {
  json job;
  std::string nonce;
  bool confine_writes = false;
};

// The job file goes as soon as it is read, before any kernel library is loaded: a kernel
// cannot read its seeds or the nonce from it.
ReadJob read_job(const std::filesystem::path& file) {
  const std::string text = read_file(file);
  remove_file(file);  // malformed or not: nothing of it stays for a kernel to find
  ReadJob read{.job = json::parse(text)};
  if (read.job.is_object() && read.job.contains("nonce")) {
    read.nonce = read.job.at("nonce").get<std::string>();
    read.job.erase("nonce");
  }
  read.confine_writes = read.job.value("confine_writes", false);
  read.job.erase("confine_writes");
  return read;
}

json run_read_job(const JobFiles& files, const json& job, bool confine_writes) {
  std::optional<run::WriteSandbox> sandbox;
  if (confine_writes && run::job_runs_a_kernel(job)) sandbox = run::confine_kernel_worker(files.result, job);
  json result = execute_job(job);
  if (sandbox) result["sandbox"] = sandbox->description;
  if (job.value("kind", "") == "probe" && result.value("kind", "") == "probe")
    result["sandbox"] = run::try_confined_cuda(files.result, job);
  return result;
}

// Outside a check (which records faults itself), a CUDA failure while solve runs is the
// kernel's; before any kernel ran (a probe) it is the environment's.
json cuda_failure_result(const json& job, const run::CudaFailure& failure) {
  const std::string kind = job.value("kind", "");
  const bool kernel_ran = kind == "check" || kind == "bench" || kind == "profile";
  return run::worker_error_result(static_cast<int>(kernel_ran ? ExitCode::kernel_failed : ExitCode::environment),
                                  (kernel_ran ? "solve faulted: " : "") + failure.message + " (" + failure.call + ")");
}

[[noreturn]] void finish(const JobFiles& files, json result, const std::string& nonce) {
  result["nonce"] = nonce;
  write_file_atomic(files.result, result.dump(2));
  std::fflush(stdout);
  std::fflush(stderr);
  std::_Exit(0);
}

}  // namespace

json execute_job(const json& job) {
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

void run_job_file_and_exit(const JobFiles& files) {
  if (files.await_device >= 0) run::await_prestarted_job(files.job, files.await_device);
  ReadJob read;
  json result;
  try {
    read = read_job(files.job);
    result = run_read_job(files, read.job, read.confine_writes);
  } catch (const Error& e) {
    result = run::worker_error_result(static_cast<int>(e.code()), e.what());
  } catch (const run::CudaFailure& failure) {
    result = cuda_failure_result(read.job, failure);
  } catch (const json::exception& e) {
    result = run::worker_error_result(static_cast<int>(ExitCode::bad_input), std::string("malformed job: ") + e.what());
  }
  finish(files, std::move(result), read.nonce);
}

}  // namespace kopt::worker
