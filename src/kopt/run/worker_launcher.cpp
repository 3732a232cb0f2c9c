#include "kopt/run/worker_launcher.hpp"

#include <cstdio>
#include <cstdlib>
#include <thread>
#include <sstream>

#include "kopt/core/clock.hpp"
#include "kopt/core/file_queries.hpp"
#include "kopt/core/files.hpp"
#include "kopt/core/secret.hpp"
#include "kopt/run/device_info.hpp"

namespace kopt::run {
namespace fs = std::filesystem;

namespace {
constexpr std::string_view kProgressPrefix = "progress: ";

std::string last_progress_line(const std::string& err) {
  std::istringstream in(err);
  std::string last;
  for (std::string line; std::getline(in, line);) {
    if (line.starts_with(kProgressPrefix)) last = line.substr(kProgressPrefix.size());
  }
  return last;
}

// The words the progress line puts before a job's own progress lines.
std::string activity_of(const nlohmann::json& job) {
  const std::string kind = job.value("kind", "");
  if (kind == "check") return "verifying";
  if (kind == "bench") return "timing";
  if (kind == "profile") return "profiling";
  if (kind == "peaks") return "measuring peaks";
  if (kind == "probe") return "probing the GPU";
  if (kind == "ncu_probe") return "trying ncu";
  return kind;
}

std::string without_progress(const std::string& err) {
  std::istringstream in(err);
  std::string kept;
  for (std::string line; std::getline(in, line);) {
    if (!line.starts_with(kProgressPrefix)) kept += line + "\n";
  }
  return kept;
}
}  // namespace

namespace {

// Only the probe counts the GPUs and checks `--device`; every other job sees its own GPU alone.
bool sees_every_gpu(const nlohmann::json& job) { return job.value("kind", "") == "probe"; }

// The job as the worker reads it: the nonce its result must carry, the write confinement, and
// its GPU by the number the worker knows it by.
nlohmann::json sealed_job(const nlohmann::json& job, const WorkerSettings& settings, const std::string& nonce,
                          const WorkerDeviceView& view) {
  nlohmann::json sealed = job;
  sealed["nonce"] = nonce;
  sealed["confine_writes"] = settings.confine_writes;
  if (view.visible_devices && sealed.contains("device") && sealed["device"].is_number_integer()) {
    sealed["device"] = view.ordinal;
  }
  return sealed;
}

ProcessSpec worker_process(const WorkerSettings& settings, const WorkerDeviceView& view,
                           const std::vector<std::string>& worker_arguments) {
  ProcessSpec spec{.argv = settings.launcher, .time_limit = settings.time_limit, .inherited_fd = settings.inherited_fd,
                   .on_start = settings.on_start};
  if (view.visible_devices) spec.env.emplace_back("CUDA_VISIBLE_DEVICES", *view.visible_devices);
  spec.argv.push_back(settings.executable.string());
  spec.argv.insert(spec.argv.end(), worker_arguments.begin(), worker_arguments.end());
  return spec;
}

// A result that names its device (a check's DeviceInfo) names it by kopt's number, as the
// user asked for it, not by the worker's.
void restore_device_ordinal(nlohmann::json& result, const WorkerSettings& settings, const WorkerDeviceView& view) {
  if (!view.visible_devices || !result.contains("device") || !result["device"].is_object()) return;
  if (result["device"].contains("ordinal")) result["device"]["ordinal"] = settings.device;
}

WorkerOutcome outcome_of(const ProcessResult& process, const fs::path& result_path, const std::string& nonce,
                         const WorkerSettings& settings, const WorkerDeviceView& view) {
  WorkerOutcome outcome;
  outcome.last_progress = last_progress_line(process.err);
  ProcessResult quiet = process;
  quiet.err = without_progress(process.err);
  outcome.stderr_tail = quiet.output_tail(8);
  outcome.output = process.out + quiet.err;
  outcome.timed_out = process.timed_out;
  if (process.ok() && path_exists(result_path)) {
    try {
      nlohmann::json result = nlohmann::json::parse(read_file(result_path));
      if (!result.is_object() || result.value("nonce", "") != nonce) {
        outcome.failure = "forged result: the worker's result does not carry the nonce kopt gave the worker, so code "
                          "other than kopt's wrote it (the kernel's library?)";
        outcome.forged = true;
        return outcome;
      }
      result.erase("nonce");
      restore_device_ordinal(result, settings, view);
      outcome.result = std::move(result);
      return outcome;
    } catch (const std::exception& e) {
      outcome.failure = std::string("worker wrote an unreadable result: ") + e.what();
      return outcome;
    }
  }
  outcome.failure = process.ok() ? "worker exited without writing a result" : "worker " + process.outcome();
  return outcome;
}

}  // namespace

WorkerDeviceView worker_device_view(int device, const char* inherited) {
  if (device < 0) return {.ordinal = device};
  if (inherited == nullptr || *inherited == '\0') return {.visible_devices = std::to_string(device), .ordinal = 0};
  // CUDA reads the list as comma-separated entries (ordinals, GPU-/MIG- UUIDs), spaces ignored.
  std::vector<std::string> entries;
  std::string entry;
  for (const char* c = inherited;; ++c) {
    if (*c == ',' || *c == '\0') {
      entries.push_back(entry);
      entry.clear();
      if (*c == '\0') break;
    } else if (*c != ' ') {
      entry += *c;
    }
  }
  if (static_cast<std::size_t>(device) >= entries.size() || entries[device].empty()) return {.ordinal = device};
  return {.visible_devices = entries[device], .ordinal = 0};
}

WorkerDeviceView worker_device_view(int device) { return worker_device_view(device, std::getenv("CUDA_VISIBLE_DEVICES")); }

WorkerOutcome run_worker(ProcessRunner& runner, const WorkerSettings& settings, const nlohmann::json& job,
                         const fs::path& work_dir) {
  create_folders(work_dir);
  const fs::path job_path = work_dir / "job.json";
  const fs::path result_path = work_dir / "result.json";
  remove_file(result_path);
  // The nonce proves that the result was written by kopt's worker code: the worker reads it
  // with the job and deletes the job file before any kernel library is loaded, so a kernel
  // that writes a result of its own does not know it (docs/integrity.md).
  const std::string nonce = secret_nonce();
  const WorkerDeviceView view = sees_every_gpu(job) ? WorkerDeviceView{.ordinal = settings.device}
                                                    : worker_device_view(settings.device);
  write_file_atomic(job_path, sealed_job(job, settings, nonce, view).dump(2));

  ProcessSpec spec = worker_process(settings, view, {"worker", job_path.string(), result_path.string()});
  const std::string activity = activity_of(job);
  ProgressScope shown(settings.progress, activity);
  spec.on_error_line = [&shown, &activity, &settings](std::string_view line) {
    if (!line.starts_with(kProgressPrefix)) return;
    const std::string progress(line.substr(kProgressPrefix.size()));
    shown.update(activity + ": " + progress);
    if (settings.on_progress) settings.on_progress(progress);
  };
  return outcome_of(runner.run(spec), result_path, nonce, settings, view);
}

PrestartedWorker::PrestartedWorker(ProcessRunner& runner, WorkerSettings settings, fs::path work_dir)
    : runner_(runner), settings_(std::move(settings)), work_dir_(std::move(work_dir)) {
  create_folders(work_dir_);
  remove_file(work_dir_ / "job.json");
  remove_file(work_dir_ / "result.json");
  // Its job (a check, a bench, an audit) runs a kernel: it sees its GPU alone.
  const WorkerDeviceView view = worker_device_view(settings_.device);
  ProcessSpec spec = worker_process(settings_, view, {"worker", "--await-device", std::to_string(view.ordinal),
                                                      (work_dir_ / "job.json").string(),
                                                      (work_dir_ / "result.json").string()});
  // Its time limit runs from when the job is given, as a worker started then would see it.
  spec.waiting = waiting_;
  spec.on_error_line = [set_up = set_up_](std::string_view line) {
    if (line.starts_with(kProgressPrefix) && line.substr(kProgressPrefix.size()) == kCudaSetUpProgress) set_up->mark();
  };
  // Launched from a thread of its own: ProcessRunner::run returns only when the worker ends.
  process_ = std::async(std::launch::async, [this, spec, set_up = set_up_] {
    ProcessResult result = runner_.run(spec);
    set_up->mark();  // ended: nothing is left to wait for
    return result;
  });
}

void PrestartedWorker::SetUp::mark() {
  {
    std::lock_guard lock(mutex);
    done = true;
  }
  changed.notify_all();
}

bool PrestartedWorker::wait_until_set_up(std::chrono::duration<double> at_most) {
  std::unique_lock lock(set_up_->mutex);
  return set_up_->changed.wait_for(lock, at_most, [&] { return set_up_->done; });
}

PrestartedWorker::~PrestartedWorker() {
  if (!process_.valid()) return;
  if (!job_written_) {
    try {
      write_file_atomic(work_dir_ / "job.json", nlohmann::json{{"kind", "cancel"}}.dump());
    } catch (const std::exception&) {
      // Not written: the worker gives up waiting by itself (cmd_worker.cpp); the wait below ends then.
    }
  }
  waiting_->store(false);
  process_.wait();
}

WorkerOutcome PrestartedWorker::run(const nlohmann::json& job, std::optional<bool> confine_writes) {
  if (used_) throw std::logic_error("PrestartedWorker::run called twice");
  used_ = true;
  WorkerSettings at_submit = settings_;
  if (confine_writes) at_submit.confine_writes = *confine_writes;
  // Ended before its job came (a broken CUDA set-up, a killed process): a fresh worker runs it.
  if (process_.wait_for(std::chrono::seconds(0)) == std::future_status::ready) {
    process_.get();
    return run_worker(runner_, at_submit, job, work_dir_);
  }
  const std::string nonce = secret_nonce();
  const WorkerDeviceView view = worker_device_view(settings_.device);
  write_file_atomic(work_dir_ / "job.json", sealed_job(job, at_submit, nonce, view).dump(2));
  job_written_ = true;
  waiting_->store(false);
  return outcome_of(process_.get(), work_dir_ / "result.json", nonce, at_submit, view);
}

void await_prestarted_job(const fs::path& job, int device) {
  try {
    prepare_cuda(device);
  } catch (const std::exception&) {
  }
  report_progress(std::string(kCudaSetUpProgress));
  constexpr double kGiveUpSeconds = 15 * 60;
  const Stopwatch waiting;
  while (!path_exists(job)) {
    if (waiting.seconds() > kGiveUpSeconds) {
      std::fprintf(stderr, "kopt worker: no job came to %s\n", job.c_str());
      std::fflush(stderr);
      std::_Exit(1);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

void report_progress(const std::string& what) {
  std::fprintf(stderr, "%.*s%s\n", static_cast<int>(kProgressPrefix.size()), kProgressPrefix.data(), what.c_str());
  std::fflush(stderr);
}

fs::path current_executable() { return link_target("/proc/self/exe"); }

}  // namespace kopt::run
