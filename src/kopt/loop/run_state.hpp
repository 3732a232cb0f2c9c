#pragma once
// The run folder (docs/design.md §5) and its one mutable file, state.json (kopt.state/1).
// Every other file of a run is written once, atomically, by the step that produces it; the
// state is rewritten atomically after each step, by one kopt at a time (RunLock).

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kopt/core/folder_lock.hpp"

#include "kopt/catalog/evidence.hpp"
#include "kopt/core/file_queries.hpp"
#include "kopt/loop/variant.hpp"
#include "kopt/spec/problem_work.hpp"

namespace kopt::loop {

inline constexpr std::string_view kStateSchema = "kopt.state/1";

struct RunSettings {
  int iterations = 3;       // at most this many iterations
  int branches = 4;         // K: branches per iteration (the built-in tuner's; a driver may write any number)
  int finalists = 3;        // the best of the screen, re-measured interleaved against the best so far
  double min_effect = 0.01; // "faster" needs the ratio's interval beyond this
  std::string timed_case;   // the case timed and profiled (empty: the first); correctness on all
  int seeds = 3;
  int retries = catalog::kDefaultRetriesPerMethod;  // times one method may be claimed again, with what changed
};

struct IterationState {
  int index = 0;
  std::string status = "open";  // open | closed
  std::string verdict;          // advanced | no_gain | all_failed (closed only)
  std::string champion;         // the winning branch's name ("b3"); empty when none
  double best_median_s = 0;     // the best so far, after this iteration
  double wall_s = 0;            // its close's wall time (closed only; 0 in runs before kopt kept it)
};

struct RunState {
  // The original kernel and the spec used: absolute in memory; state.json keeps them relative
  // to the run folder (RunFolder::save), so a run moved with its kernel's folder still works.
  std::filesystem::path kernel;
  std::optional<std::filesystem::path> spec;
  std::vector<std::string> dims;                // --dim NAME=VALUE, applied to every case
  RunSettings settings;
  std::string created;                          // UTC, ISO 8601
  double init_wall_s = 0;                       // init's wall time: measure, profile, SASS (0: not kept)
  std::map<std::string, double> init_stages_s;  // of it, each stage's: measure, environment, profile, sass
  Variant baseline;                             // kernel paths are relative to the run folder
  double baseline_median_s = 0;
  std::optional<double> reference_median_s;
  Variant best;
  int best_iteration = 0;                       // 0: the baseline
  double best_median_s = 0;
  int current = 1;                              // the iteration open now (or the last, when finished)
  std::vector<IterationState> iterations;
  bool finished = false;
  std::string stop_reason;                      // iterations_done | near_peak | time_budget | ...
  // The GPUs the run measured on, in order; the last is the one its medians are of. Each is
  // gpu_identity (uuid, name, clocks) with "since_iteration" (0: init) and the baseline's
  // median there. Empty for a run made before kopt kept it (env.json's device then stands).
  nlohmann::json gpus = nlohmann::json::array();
};

// kopt's own time from init to the close of the first iteration that advanced (init and every
// close up to it, not the time a driver spent between them); none before one advanced.
std::optional<double> time_to_first_improvement(const RunState& state);

void to_json(nlohmann::json& out, const RunState& state);
void from_json(const nlohmann::json& in, RunState& state);

// input_error when the run's spec is gone (a run moved without its kernel's folder): one
// line naming the path state.json leads to. Measuring needs the spec; reading a run does not.
void require_inputs(const RunState& state);

// The spec's work per call on the run's timed case; none when the spec lacks [work] formulas,
// cannot be read, or the run overrides dims (--dim), whose values are not re-applied here.
std::optional<spec::CaseWork> timed_case_work(const RunState& state);

// The name a run gives its copies of a kernel: "kernel.cu" for a CUDA kernel, "kernel.py" for
// a Triton one (the kind of `kernel`, any path of the run's kernel or of a copy).
std::string kernel_file_like(const std::filesystem::path& kernel);

// Paths of one run folder.
class RunFolder {
 public:
  explicit RunFolder(std::filesystem::path root) : root_(std::move(root)) {}
  const std::filesystem::path& root() const { return root_; }
  std::filesystem::path state_file() const { return root_ / "state.json"; }
  std::filesystem::path baseline() const { return root_ / "baseline"; }
  std::filesystem::path iteration(int i) const { return root_ / ("iter" + std::to_string(i)); }
  std::filesystem::path branches(int i) const { return iteration(i) / "branches"; }
  std::filesystem::path champion(int i) const { return iteration(i) / "champion"; }
  // A kernel path as stored (relative to the run) made absolute, and back.
  std::filesystem::path absolute(const std::filesystem::path& stored) const;
  std::filesystem::path relative(const std::filesystem::path& path) const;
  Variant resolved(Variant variant) const;
  // Any path outside the run as the run's files keep it (relative to the run folder, "../" and
  // all, so that a run moved together with its kernel's folder still finds it), and back.
  std::filesystem::path kept_path(const std::filesystem::path& path) const;
  std::filesystem::path found_path(const std::filesystem::path& kept) const;

  bool exists() const { return path_exists(state_file()); }
  RunState load() const;                 // input_error naming the file when it is not a run
  void save(const RunState& state) const;  // atomically

 private:
  std::filesystem::path root_;
};

// An exclusive advisory lock on RUN/.lock for as long as it lives: a second kopt working on
// the same run is refused with one line instead of interleaving its writes.
class RunLock {
 public:
  explicit RunLock(const RunFolder& run) : lock_(run.root(), "run") {}

 private:
  FolderLock lock_;
};

// The JSON file at `path`; input_error naming it when it is missing or malformed.
nlohmann::json read_json(const std::filesystem::path& path);
void write_json(const std::filesystem::path& path, const nlohmann::json& document);

// Branch folders of an iteration, in natural order (b2 before b10).
std::vector<std::string> branch_names(const RunFolder& run, int iteration);

}  // namespace kopt::loop
