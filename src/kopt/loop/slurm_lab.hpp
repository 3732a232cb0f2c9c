#pragma once
// The loop's measurements on a Slurm cluster (`--executor slurm`, docs/scale-out.md). A screen
// of K branches becomes one array job: each task measures the first variant (the best so far)
// and at most `variants_per_task` others on one GPU of one node (`kopt lab-job`), so that
// every ratio compares kernels timed on the same card; the tasks' outcomes are joined in the
// order asked. Profiles and SASS stay with the lab kopt itself runs on.
//
// Each task's job, result and log live in a stage folder keyed by what is measured: a task
// that ended without a result (cancelled, failed, its node gone, out of time) is named in one
// line and the others' results are kept, so re-running the command submits only the missing
// tasks. The stage folder must be visible to the nodes at the same path; nothing else of the
// run folder is read there unless the lab itself needs it (a GPU lab reads the run's spec and
// kernels: then the run folder must be shared too).

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

struct SlurmSettings {
  std::string partition;                 // empty: the cluster's default
  int gpus_per_task = 0;                 // --gres=gpu:N; 0: none (CPU jobs, the simulated lab)
  std::chrono::seconds wait{3600};       // a task's time limit, and how long kopt waits for all of them
  std::size_t variants_per_task = 4;     // besides the first, which every task measures
  std::filesystem::path stage;           // the stage folder (shared with the nodes)
  std::filesystem::path kopt;            // the kopt the nodes run
  nlohmann::json lab;                    // how a node makes its lab: {"simulate": MODEL} or {"run": DIR, "cache_dir": DIR}
};

// A part of a measurement: the request's first variant and a slice of the others.
std::vector<MeasureRequest> split_request(const MeasureRequest& request, std::size_t variants_per_task);

// The parts' measurements joined: the first variant's outcome from the first part, each
// other variant's from its own, in the order of `request`; the GPUs of every part in detail.
Measurement join_measurements(const MeasureRequest& request, const std::vector<Measurement>& parts);

nlohmann::json measure_request_to_json(const MeasureRequest& request);
MeasureRequest measure_request_from_json(const nlohmann::json& in);
nlohmann::json measurement_to_json(const Measurement& measurement);
Measurement measurement_from_json(const nlohmann::json& in);

// sbatch's command line for the tasks `tasks` of one stage folder.
std::vector<std::string> sbatch_command(const SlurmSettings& settings, const std::filesystem::path& dir,
                                        const std::string& job_name, const std::vector<std::size_t>& tasks);

class SlurmLab final : public Lab {
 public:
  SlurmLab(std::unique_ptr<Lab> local, ProcessRunner& runner, SlurmSettings settings);

  nlohmann::json environment() override { return local_->environment(); }
  Measurement measure(const MeasureRequest& request) override { return on_cluster("measure", request); }
  Measurement first_look(const MeasureRequest& request) override { return on_cluster("first_look", request); }
  Evidence profile(const Variant& variant, const std::filesystem::path& dir) override {
    return local_->profile(variant, dir);
  }
  std::vector<MethodSass> sass(const Variant& variant, const std::vector<std::string>& methods) override {
    return local_->sass(variant, methods);
  }
  ProcessTimes process_times() const override { return local_->process_times(); }

 private:
  Measurement on_cluster(const std::string& kind, const MeasureRequest& request);

  std::unique_ptr<Lab> local_;
  ProcessRunner& runner_;
  SlurmSettings settings_;
};

// `kopt lab-job`'s work on a node: the job's measurement on `lab`, as JSON.
nlohmann::json run_lab_job(Lab& lab, const nlohmann::json& job);

}  // namespace kopt::loop
