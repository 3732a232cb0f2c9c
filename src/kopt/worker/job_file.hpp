#pragma once
// `kopt worker JOB.json RESULT.json`'s work: one job file (a check, a timing, a profile, the
// peaks, a device probe) executed in this child process, its result written beside it. The
// parent (run/worker_launcher.hpp) started it; a kernel that faults, hangs or crashes takes
// only this process down.

#include <filesystem>

#include <nlohmann/json.hpp>

namespace kopt::worker {

struct JobFiles {
  std::filesystem::path job;
  std::filesystem::path result;
  int await_device = -1;  // >= 0: started before its job (run::PrestartedWorker), CUDA set up on it
};

// The job's result (kind "check", "bench", "profile", "peaks", "probe", "ncu_probe", "cancel").
// An unknown kind is an input_error.
nlohmann::json execute_job(const nlohmann::json& job);

// Reads and removes the job file, runs it confined where it asks to be, writes the result with
// the job's nonce, and ends the process at once: no exit handler or destructor of a kernel
// library runs after the result is written (docs/integrity.md). Every failure is a result.
[[noreturn]] void run_job_file_and_exit(const JobFiles& files);

}  // namespace kopt::worker
