#pragma once
// The loop's measurements spread over several GPUs (`--devices 0,1`) or a Slurm cluster
// (`--executor slurm`), docs/scale-out.md. The screen of K branches (MeasureRequest::spread)
// becomes tasks: each measures the first variant (the best so far) and at most
// `variants_per_task` others on one GPU, as `kopt lab-job`, so that every ratio compares
// kernels timed on the same card; the tasks' outcomes are joined in the order asked. Every
// other measurement (baseline, finals, ablation, audit) is one task on one GPU. Profiles and
// SASS stay with the lab kopt itself runs on.
//
// Each task's job, result and log live in a stage folder keyed by what is measured: a task
// that ended without a result (cancelled, failed, its node gone, out of time) is named in one
// line and the others' results are kept, so re-running the command runs only the missing
// tasks. On a cluster the stage folder must be visible to the nodes at the same path; nothing
// else of the run folder is read there unless the lab itself needs it (a GPU lab reads the
// run's spec and kernels: then the run folder must be shared too).

#include <chrono>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kopt/core/process.hpp"
#include "kopt/loop/lab.hpp"

namespace kopt::loop {

// A part of a measurement: the request's first variant and a slice of the others; the whole
// request, as one part, unless it may be spread.
std::vector<MeasureRequest> split_request(const MeasureRequest& request, std::size_t variants_per_task);

// The parts' measurements joined: the first variant's outcome from the first part, each
// other variant's from its own, in the order of `request`; one bench report of them all.
Measurement join_measurements(const MeasureRequest& request, const std::vector<Measurement>& parts);

nlohmann::json measure_request_to_json(const MeasureRequest& request);
MeasureRequest measure_request_from_json(const nlohmann::json& in);
nlohmann::json measurement_to_json(const Measurement& measurement);
Measurement measurement_from_json(const nlohmann::json& in);

// Runs tasks of a stage folder: task N is `kopt lab-job DIR/part_N.json DIR/part_N.result.json`
// with its output in DIR/part_N.log. Returns how they ended when that is worth saying (not all
// in time: cancelled), else "". A task's missing result is the caller's to name.
class TaskExecutor {
 public:
  virtual ~TaskExecutor() = default;
  virtual std::string run(const std::filesystem::path& dir, const std::string& job_name,
                          const std::vector<std::size_t>& tasks) = 0;
};

struct SlurmSettings {
  std::string partition;            // empty: the cluster's default
  int gpus_per_task = 0;            // --gres=gpu:N; 0: none (CPU jobs, the simulated lab)
  std::chrono::seconds wait{3600};  // a task's time limit, and how long kopt waits for all of them
  std::filesystem::path kopt;       // the kopt the nodes run
};

// sbatch's command line for the tasks `tasks` of one stage folder.
std::vector<std::string> sbatch_command(const SlurmSettings& settings, const std::filesystem::path& dir,
                                        const std::string& job_name, const std::vector<std::size_t>& tasks);

// One array job (sbatch --wait); tasks still queued or running at `wait` are cancelled.
class SlurmExecutor final : public TaskExecutor {
 public:
  SlurmExecutor(ProcessRunner& runner, SlurmSettings settings) : runner_(runner), settings_(std::move(settings)) {}
  std::string run(const std::filesystem::path& dir, const std::string& job_name,
                  const std::vector<std::size_t>& tasks) override;

 private:
  ProcessRunner& runner_;
  SlurmSettings settings_;
};

// The GPUs of this host, one task on each at a time (`kopt lab-job --device N`), the tasks
// dealt out in turn; each task's process has `limit`.
class DeviceExecutor final : public TaskExecutor {
 public:
  DeviceExecutor(ProcessRunner& runner, std::vector<int> devices, std::filesystem::path kopt, std::chrono::seconds limit);
  std::string run(const std::filesystem::path& dir, const std::string& job_name,
                  const std::vector<std::size_t>& tasks) override;

 private:
  ProcessRunner& runner_;
  std::vector<int> devices_;
  std::filesystem::path kopt_;
  std::chrono::seconds limit_;
};

// The GPUs of a --devices list ("0,1"), each once; throws input_error for anything else.
std::vector<int> parse_devices(const std::string& list);

// Refuses (input_error, one line) GPUs of more than one model for one run: their times could
// not be compared. `names` is nvidia-smi's name per index of `devices`.
void require_one_model(const std::vector<int>& devices, const std::vector<std::string>& names);

// A --devices list ("all" or "0,1") as this host's GPUs, asked of nvidia-smi: each must exist,
// and all be of one model (require_one_model).
std::vector<int> host_devices(ProcessRunner& runner, const std::string& list);

struct SpreadSettings {
  std::size_t variants_per_task = 4;  // besides the first, which every task measures
  std::filesystem::path stage;        // the stage folder (on a cluster: shared with the nodes)
  nlohmann::json lab;                 // how a task makes its lab: {"simulate": MODEL} or {"state": ..., "cache_dir": DIR}
};

class SpreadLab final : public Lab {
 public:
  SpreadLab(std::unique_ptr<Lab> local, std::unique_ptr<TaskExecutor> executor, SpreadSettings settings);

  nlohmann::json environment() override { return local_->environment(); }
  Measurement measure(const MeasureRequest& request) override { return spread("measure", request); }
  Measurement first_look(const MeasureRequest& request) override { return spread("first_look", request); }
  Evidence profile(const Variant& variant, const std::filesystem::path& dir) override {
    return local_->profile(variant, dir);
  }
  std::vector<MethodSass> sass(const Variant& variant, const std::vector<std::string>& methods) override {
    return local_->sass(variant, methods);
  }
  ProcessTimes process_times() const override { return local_->process_times(); }
  // A task's lab is made as the local one is (settings.lab), so it honours what this one does.
  bool measures_every_case() const override { return local_->measures_every_case(); }

 private:
  Measurement spread(const std::string& kind, const MeasureRequest& request);

  std::unique_ptr<Lab> local_;
  std::unique_ptr<TaskExecutor> executor_;
  SpreadSettings settings_;
};

// `kopt lab-job`'s work: the job's measurement on `lab`, as JSON.
nlohmann::json run_lab_job(Lab& lab, const nlohmann::json& job);

}  // namespace kopt::loop
