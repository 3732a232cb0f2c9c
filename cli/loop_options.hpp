#pragma once
// Options of the loop's commands (init, close, status, finalize, optimize) and the Lab they
// measure with: the GPU, or with --simulate MODEL a recorded model (tests, dry runs).

#include <CLI/CLI.hpp>

#include <memory>
#include <string>

#include "command.hpp"
#include "common_options.hpp"
#include "kopt/core/process.hpp"
#include "kopt/loop/lab.hpp"
#include "kopt/loop/optimize.hpp"
#include "kopt/loop/result_cache.hpp"
#include "kopt/loop/run_loop.hpp"

namespace kopt::cli {

// --executor slurm, --devices: where the measurements run (docs/scale-out.md).
struct SpreadOptions {
  std::string executor = "local";  // local | slurm
  std::string partition;
  int gpus = 0;
  double minutes = 60;
  std::string stage;
  std::size_t variants_per_task = 4;
  std::string devices;  // --devices all|0,1: the screen spread over this host's GPUs
};

struct LoopOptions {
  CommonOptions common;
  std::string simulate;  // a kopt.lab_model/1 file: answer from it instead of the GPU
  SpreadOptions spread;
};

void add_loop_options(CLI::App& app, LoopOptions& options);

// The result cache the loop shares across runs, in the cache folder; none with --simulate
// (a model's answers are not measurements).
std::unique_ptr<ResultCache> open_result_cache(const LoopOptions& options);

// The lab for a run with these settings (the spec, dims and case the run was created with);
// with --executor slurm its measurements run as Slurm tasks, with --devices its screens on
// several GPUs of this host (loop/spread_lab.hpp).
std::unique_ptr<loop::Lab> make_lab(const LoopOptions& options, const loop::RunState& run, Context& context);

// The next step with the flags it needs typed into its command: a run measured on a simulated
// lab is closed on the same lab (without --simulate, close would ask for a GPU), and with the
// same --cache-dir; so is a finished run's final audit (finalize). With --json, the command has it too.
nlohmann::json with_loop_flags(nlohmann::json next, const LoopOptions& options);
// The flags a run was measured with, as far as the run recorded them (env.json's lab model),
// for a command such as status that prints the next step without taking them itself.
LoopOptions recorded_loop_options(const loop::RunFolder& run);
// next.json's command as a --json driver runs it: with --json (the skill asks for it on every
// command), so that the command printed is the command to run.
nlohmann::json with_json_flag(nlohmann::json next);

// One line per step, appended to RUN/kopt.log with the time, and on standard error (above the
// live progress line) when it is a terminal and --json is not given.
loop::LoopContext progress_hooks(const CommonOptions& common, const std::filesystem::path& run_dir);

// What init, close and optimize hand the loop: its progress hooks (progress_hooks) and the
// result cache they point at (open_result_cache), which lives as long as the session.
struct LoopSession {
  std::unique_ptr<ResultCache> cache;
  loop::LoopContext context;
};
LoopSession loop_session(const LoopOptions& options, const std::filesystem::path& run_dir);

// What `init` and `optimize` start a run from.
struct RunTarget {
  std::string target = ".";
  std::string spec;
  std::vector<std::string> dims;
  std::vector<std::string> defines;
  std::string run;
  loop::RunSettings settings;
};

void add_run_target_options(CLI::App& app, RunTarget& target);

// The request of `init` and `optimize`; bad --dim and -D values are refused here.
loop::InitRequest init_request(const RunTarget& target);

// The run's settings before init has written state.json: enough to make its lab.
loop::RunState provisional_state(const loop::InitRequest& request);

// summary.md and summary.json of a run, then the summary printed (--json: the document).
int write_summary(const std::string& run_dir, bool json);

// `finalize` and the end of `optimize`: the final audit (audit.json: the champion against the
// baseline, interleaved, on every case; skipped with `audit` false), then summary.md.
int finalize_run(const LoopOptions& options, const std::string& run_dir, bool audit);

// An existing run is resumed as it was started: input_error naming the first of the kernel,
// --spec, --dim, -D or a setting that `app`'s command line gives otherwise than the run has
// (never ignored in silence). What the command line leaves out is the run's.
void require_resumed_as_asked(const CLI::App& app, const loop::InitRequest& asked, const loop::RunState& state);

// `optimize` after its options: the run folder chosen (resumed as asked, refused, or a new one
// beside it with `new_run_on_change`), the tuner's space checked before any folder exists, the
// loop run, then finalize.
int run_unattended(const LoopOptions& options, loop::OptimizeRequest request, bool new_run_on_change,
                   const CLI::App& app);

// The next step, for people.
std::string format_next_step(const nlohmann::json& next);

}  // namespace kopt::cli
