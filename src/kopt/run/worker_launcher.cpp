#include "kopt/run/worker_launcher.hpp"

#include <cstdio>
#include <sstream>

#include "kopt/core/files.hpp"
#include "kopt/core/secret.hpp"

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

WorkerOutcome run_worker(ProcessRunner& runner, const WorkerSettings& settings, const nlohmann::json& job,
                         const fs::path& work_dir) {
  fs::create_directories(work_dir);
  const fs::path job_path = work_dir / "job.json";
  const fs::path result_path = work_dir / "result.json";
  fs::remove(result_path);
  // The nonce proves that the result was written by kopt's worker code: the worker reads it
  // with the job and deletes the job file before any kernel library is loaded, so a kernel
  // that writes a result of its own does not know it (docs/integrity.md).
  const std::string nonce = secret_nonce();
  nlohmann::json sealed = job;
  sealed["nonce"] = nonce;
  sealed["confine_writes"] = settings.confine_writes;
  write_file_atomic(job_path, sealed.dump(2));

  ProcessSpec spec{.argv = settings.launcher, .time_limit = settings.time_limit, .inherited_fd = settings.inherited_fd,
                   .on_start = settings.on_start};
  spec.argv.insert(spec.argv.end(), {settings.executable.string(), "worker", job_path.string(), result_path.string()});
  const std::string activity = activity_of(job);
  ProgressScope shown(settings.progress, activity);
  spec.on_error_line = [&shown, &activity](std::string_view line) {
    if (line.starts_with(kProgressPrefix)) shown.update(activity + ": " + std::string(line.substr(kProgressPrefix.size())));
  };
  ProcessResult process = runner.run(spec);

  WorkerOutcome outcome;
  outcome.last_progress = last_progress_line(process.err);
  ProcessResult quiet = process;
  quiet.err = without_progress(process.err);
  outcome.stderr_tail = quiet.output_tail(8);
  outcome.output = process.out + quiet.err;
  outcome.timed_out = process.timed_out;
  if (process.ok() && fs::exists(result_path)) {
    try {
      nlohmann::json result = nlohmann::json::parse(read_file(result_path));
      if (!result.is_object() || result.value("nonce", "") != nonce) {
        outcome.failure = "forged result: the worker's result does not carry the nonce kopt gave the worker, so code "
                          "other than kopt's wrote it (the kernel's library?)";
        outcome.forged = true;
        return outcome;
      }
      result.erase("nonce");
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

void report_progress(const std::string& what) {
  std::fprintf(stderr, "%.*s%s\n", static_cast<int>(kProgressPrefix.size()), kProgressPrefix.data(), what.c_str());
  std::fflush(stderr);
}

fs::path current_executable() { return fs::read_symlink("/proc/self/exe"); }

}  // namespace kopt::run
