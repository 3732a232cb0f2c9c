#pragma once
// One Python reference runner for a whole command (`kopt_reference_runner.py --serve DIR`):
// a bench's check, its audit within tolerance and the reference's timing each started Python,
// numpy and, on a GPU machine, torch with its CUDA context: about 5 s a start on the H200,
// three times a bench, once a branch in the loop's screen. The server starts once and takes
// each set of manifests as a request file; it answers what a one-shot run would have printed.
//
// Requests and answers live in a folder of kopt's cache that no kernel's worker may write
// (run/write_sandbox.hpp); each request carries a fresh nonce that its answer must repeat, and
// an answer left there before its request is removed first. The reference runs only when
// asked: as before, after the kernel's worker has exited.
//
// A command can therefore start it early, before its compile (kopt check, kopt bench, the loop's
// lab), for Python's imports to overlap nvcc and the kernel's worker; `kopt check`, which times
// nothing, has its runner set up torch's CUDA on its GPU too (`--warm-cuda`); no reference code
// runs before a request. A server never asked anything ends at once when destroyed (SIGKILL to
// its process group: it holds no work yet, and its runner reads "stop" only after importing
// torch, seconds later). A check that ends
// early (a compile error, a cached result, a kernel that fails) thus waits for no import. A
// server that was asked ends by "stop" and is waited for, within its time limit.

#include <atomic>
#include <chrono>
#include <filesystem>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kopt/core/files.hpp"
#include "kopt/core/process.hpp"

namespace kopt::verify {

// What a run of the runner on some manifests gave: its JSON lines, or its error.
struct RunnerAnswer {
  std::vector<nlohmann::json> lines;
  std::optional<std::string> error;  // the runner's REFERENCE_ERROR line, without the prefix
  int exit_code = 0;                 // the runner's exit code for the error (3: environment)
  bool timed_out = false;
  double seconds = 0;
};

// Where a .py reference's outputs' time went, in seconds (check.json's "reference_seconds"):
// the reference phase of a first check is more than Python's start (issue 59).
struct PythonReferenceSeconds {
  double inputs = 0;          // kopt writing the inputs of every (case, seed) into .npy files
  double runner = 0;          // waiting for the runner's answer: its start, if not yet ready, and:
  double runner_load = 0;     //   the runner reading the inputs and moving them to the device
  double runner_compute = 0;  //   its calls of the reference
  double runner_save = 0;     //   writing the outputs
  double outputs = 0;         // kopt reading the outputs back to check their sizes
};

class PythonReferenceServer {
 public:
  // Called with true as a request is handed to the runner and with false once its answer (or
  // the runner's end) is in. A server kept across a loop's measurements runs outside the lab's
  // process ledger, which counts its requests through this instead of its whole idle life.
  using RequestObserver = std::function<void(bool working)>;

  // Starts `python runner_script --serve DIR` in a folder beneath cache_dir/tmp; a request may
  // run for at most `time_limit`. With `warm_cuda_device`, the runner also sets up torch's CUDA
  // on that GPU once its imports are done (`--warm-cuda N`), before any request: the first
  // reference then finds its context made. Ending it: the header's comment.
  PythonReferenceServer(ProcessRunner& runner, const std::filesystem::path& python,
                        const std::filesystem::path& runner_script, const std::filesystem::path& cache_dir,
                        std::chrono::duration<double> time_limit, RequestObserver observer = {},
                        std::optional<int> warm_cuda_device = std::nullopt);
  ~PythonReferenceServer();
  PythonReferenceServer(const PythonReferenceServer&) = delete;
  PythonReferenceServer& operator=(const PythonReferenceServer&) = delete;

  // Runs the manifests, one request at a time (a bench asks from one thread); nullopt when the
  // server has ended (it could not start, a reference ended its process, or a request ran out
  // of time before): the caller runs them one-shot.
  std::optional<RunnerAnswer> run(const std::vector<std::filesystem::path>& manifests);

  // Whether run() may still answer: the process has not ended and no request broke it.
  bool serving() const { return !broken_ && !ended(); }

 private:
  // The runner's process group, as ProcessSpec::on_start tells it (on the runner's thread),
  // ended at once when asked to, whether before or after that.
  class Group {
   public:
    void started(int pid);
    void end();

   private:
    std::mutex mutex_;
    int pid_ = 0;
    bool ending_ = false;
  };

  bool ended() const;

  ProcessRunner& runner_;
  RequestObserver observer_;
  TempDir dir_;
  std::shared_ptr<Group> group_ = std::make_shared<Group>();
  std::shared_ptr<std::atomic<bool>> waiting_ = std::make_shared<std::atomic<bool>>(true);
  std::shared_future<ProcessResult> process_;
  int next_ = 0;
  bool broken_ = false;
};

}  // namespace kopt::verify
