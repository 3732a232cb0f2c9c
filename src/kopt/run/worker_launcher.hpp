#pragma once
// The parent's side of a worker process: write JOB.json, run `kopt worker JOB.json
// RESULT.json` under a time limit, read the result. A worker that crashes, hangs or is
// killed becomes a WorkerOutcome that says so; it never ends kopt itself.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "kopt/core/process.hpp"
#include "kopt/core/progress_line.hpp"

namespace kopt::run {

struct WorkerSettings {
  std::filesystem::path executable;  // the kopt binary that has the `worker` command
  std::chrono::duration<double> time_limit = std::chrono::seconds(120);  // in seconds
  int device = 0;
  // Jobs that run a kernel confine its writes (write_sandbox.hpp). Set from the device probe,
  // which tries it: on a driver that cannot work confined, workers run as before and no
  // cache a kernel could have written is trusted.
  bool confine_writes = false;
  // Words before `kopt worker JOB RESULT`: a profiler that runs the worker under itself.
  std::vector<std::string> launcher;
  // Where the worker's progress lines are shown live, under the job's activity ("timing:
  // case default: measuring 3 variants: 1262 samples, 2 still sampling"); none: nowhere.
  ProgressLine* progress = nullptr;
  // A descriptor the worker gets as core/process.hpp's kInheritedFd: the timing witness's
  // pipe (measure/sample_witness.hpp); -1: none.
  int inherited_fd = -1;
  // Told the worker's process id when it starts (core/process.hpp's ProcessSpec::on_start).
  std::function<void(int pid)> on_start;
  // Told each progress line as it arrives, on the thread that called run_worker: the check
  // starts the reference's worker once the kernel's has set CUDA up (verify/check.cpp).
  std::function<void(const std::string& line)> on_progress;
};

struct WorkerOutcome {
  std::optional<nlohmann::json> result;  // the worker finished and wrote its result
  std::string failure;                   // otherwise: "worker was killed by signal 11 (...)"
  bool timed_out = false;
  bool forged = false;                   // a result was there, but not the worker's own
  std::string last_progress;             // the last "progress:" line it printed
  std::string stderr_tail;
  std::string output;                    // all of stdout and stderr but progress lines (a
                                         // launcher such as ncu reports there)
};

// The GPUs a worker may see. A worker that loads a kernel sees only the GPU it works on, as
// its device 0 (CUDA_VISIBLE_DEVICES set to that one entry of kopt's own list): work a kernel
// sent to another GPU would escape every clock of the timed one, and could load a GPU another
// kopt is timing on (docs/integrity.md, "One GPU per worker"). The device probe alone sees
// every GPU: it counts them and checks `--device`.
struct WorkerDeviceView {
  std::optional<std::string> visible_devices;  // the worker's CUDA_VISIBLE_DEVICES; none: inherited
  int ordinal = 0;                             // the GPU's number inside the worker
};

// `device` is kopt's own number for the GPU (`--device`), counted as CUDA counts under
// `inherited` ($CUDA_VISIBLE_DEVICES of kopt's process; null or empty: every GPU). A list
// that has no entry at `device` leaves the worker as kopt is: CUDA itself will refuse the
// number there, with its own message.
WorkerDeviceView worker_device_view(int device, const char* inherited);
// The same for kopt's environment as it is.
WorkerDeviceView worker_device_view(int device);

// Runs `job` in a fresh worker; job files live in `work_dir`.
WorkerOutcome run_worker(ProcessRunner& runner, const WorkerSettings& settings, const nlohmann::json& job,
                         const std::filesystem::path& work_dir);

// A worker started before its job is known (`kopt worker --await-device N JOB RESULT`): it
// sets CUDA up on the device (run::prepare_cuda, ~0.7 s on an H200) while the parent finishes
// what the job depends on, then waits for the job file. No kernel code is loaded before the
// job names it, so starting early exposes nothing a kernel could use. run() writes the job
// and returns the outcome as run_worker does; a worker that was never given a job is told to
// stop (a `cancel` job) when this object goes.
class PrestartedWorker {
 public:
  PrestartedWorker(ProcessRunner& runner, WorkerSettings settings, std::filesystem::path work_dir);
  ~PrestartedWorker();
  PrestartedWorker(const PrestartedWorker&) = delete;
  PrestartedWorker& operator=(const PrestartedWorker&) = delete;

  // Runs `job` in the waiting worker; once only. A worker that has already ended (it could
  // not wait) is replaced by a fresh one started now, so the job runs either way.
  // `confine_writes` replaces the settings' when given: the checks that decide it may run
  // after the worker started.
  WorkerOutcome run(const nlohmann::json& job, std::optional<bool> confine_writes = std::nullopt);

  // Waits until the worker has set CUDA up (or ended), at most `at_most`; true if it has. A
  // bench waits so before it times, so that no context is being made beside its timed calls.
  bool wait_until_set_up(std::chrono::duration<double> at_most);

 private:
  struct SetUp {
    std::mutex mutex;
    std::condition_variable changed;
    bool done = false;
    void mark();
  };
  ProcessRunner& runner_;
  WorkerSettings settings_;
  std::filesystem::path work_dir_;
  std::shared_ptr<std::atomic<bool>> waiting_ = std::make_shared<std::atomic<bool>>(true);
  std::shared_ptr<SetUp> set_up_ = std::make_shared<SetUp>();
  std::future<ProcessResult> process_;
  bool used_ = false;
  bool job_written_ = false;
};

// Worker side of PrestartedWorker: sets CUDA up on `device` (what a job does first anyway; a
// failure is left for the job to meet and report), then returns once `job` exists. Gives up
// (exit 1) after 15 minutes without one: its parent is gone.
void await_prestarted_job(const std::filesystem::path& job, int device);

// The progress line a prestarted worker prints once CUDA is set up, before it waits.
inline constexpr std::string_view kCudaSetUpProgress = "CUDA set up";

// Worker side: progress lines on stderr let the parent say where a crash happened, and show
// how far the work has come while it runs.
void report_progress(const std::string& what);

// The path of the running executable (/proc/self/exe).
std::filesystem::path current_executable();

}  // namespace kopt::run
