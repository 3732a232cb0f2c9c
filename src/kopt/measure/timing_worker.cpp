#include "kopt/measure/timing_worker.hpp"

#include "kopt/core/error.hpp"
#include "kopt/core/file_queries.hpp"
#include "kopt/core/files.hpp"

namespace kopt::measure {
namespace fs = std::filesystem;

TimingWorker::TimingWorker(verify::CheckContext& context, std::chrono::duration<double> time_limit)
    : code_witness_(code_witness_rule()) {
  run::WorkerSettings settings = context.worker;
  settings.time_limit = time_limit;
  settings.inherited_fd = witness_.child_fd();
  settings.on_start = [this](int pid) { code_witness_.watch(pid); };
  work_.emplace("bench", context.cache_dir / "tmp");
  process_.emplace(context.runner, settings, work_->path());
}

TimingOutcome TimingWorker::run(BenchJob job, const fs::path& kept_dir, bool confine_writes) {
  job.witness_fd = witness_.child_fd() >= 0 ? kWitnessFd : -1;
  job.retention_dir = work_->path() / "kept";
  TimingOutcome outcome{.worker = process_->run(bench_job_to_json(job), confine_writes)};
  process_.reset();
  if (path_exists(job.retention_dir) && !try_move_path(job.retention_dir, kept_dir)) {
    throw environment_error("cannot move the kept timed outputs out of {}", work_->path().string());
  }
  work_.reset();
  outcome.spans = witness_.finish();
  outcome.code = code_witness_.finish();
  return outcome;
}

}  // namespace kopt::measure
