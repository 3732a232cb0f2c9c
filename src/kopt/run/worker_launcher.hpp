#pragma once
// The parent's side of a worker process: write JOB.json, run `kopt worker JOB.json
// RESULT.json` under a time limit, read the result. A worker that crashes, hangs or is
// killed becomes a WorkerOutcome that says so; it never ends kopt itself.

#include <chrono>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
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

// Runs `job` in a fresh worker; job files live in `work_dir`.
WorkerOutcome run_worker(ProcessRunner& runner, const WorkerSettings& settings, const nlohmann::json& job,
                         const std::filesystem::path& work_dir);

// Worker side: progress lines on stderr let the parent say where a crash happened, and show
// how far the work has come while it runs.
void report_progress(const std::string& what);

// The path of the running executable (/proc/self/exe).
std::filesystem::path current_executable();

}  // namespace kopt::run
