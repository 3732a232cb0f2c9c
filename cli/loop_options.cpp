#include "loop_options.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <ctime>
#include <iostream>

#include "kopt/core/clock.hpp"
#include "kopt/core/error.hpp"
#include "kopt/core/file_queries.hpp"
#include "kopt/core/files.hpp"
#include "kopt/loop/final_audit.hpp"
#include "kopt/loop/frozen_inputs.hpp"
#include "kopt/loop/gpu_lab.hpp"
#include "kopt/loop/simulated_lab.hpp"
#include "kopt/loop/spread_lab.hpp"
#include "kopt/loop/tuner.hpp"
#include "kopt/run/worker_launcher.hpp"
#include "kopt/report/run_summary.hpp"
#include "kopt/spec/problem_spec.hpp"
#include "kopt/spec/tool_arguments.hpp"

namespace kopt::cli {
namespace fs = std::filesystem;

namespace {

std::string default_run_dir() { return utc_timestamp("run_%Y%m%d-%H%M%S"); }

}  // namespace


void add_loop_options(CLI::App& app, LoopOptions& options) {
  add_common_options(app, options.common);
  app.add_option("--simulate", options.simulate,
                 "Answer every measurement from this lab model (kopt.lab_model/1) instead of the GPU: for tests and "
                 "dry runs of a driver")
      ->envname("KOPT_SIMULATE");
  SpreadOptions& spread = options.spread;
  app.add_option("--executor", spread.executor, "Where measurements run: local (this machine's GPU), or slurm (array jobs)")
      ->check(CLI::IsMember({"local", "slurm"}));
  app.add_option("--slurm-partition", spread.partition, "The Slurm partition (default: the cluster's)");
  app.add_option("--slurm-gpus", spread.gpus, "GPUs per Slurm task (--gres=gpu:N; 0: none, for the simulated lab)")
      ->check(CLI::Range(0, 64));
  app.add_option("--slurm-time", spread.minutes, "Minutes a measurement's tasks may take, queue included; then cancelled")
      ->check(number_between(0.05, 10080));
  app.add_option("--slurm-stage,--stage", spread.stage,
                 "The tasks' folder: on Slurm one the nodes see at the same path (required); with --devices, "
                 "default CACHE/spread")
      ->check(output_folder());
  app.add_option("--slurm-variants-per-task,--variants-per-task", spread.variants_per_task,
                 "Variants per task (a GPU's share of a screen, or a Slurm task's) besides the best, which every task "
                 "measures too (default: 4)")
      ->check(CLI::Range(1, 256));
  app.add_option("--devices", spread.devices,
                 "Spread each screen over these GPUs of this host: all, or indices such as 0,1 (one GPU of one model "
                 "per task; finals, ablation and audit stay on the first)");
}

std::unique_ptr<ResultCache> open_result_cache(const LoopOptions& options) {
  if (!options.simulate.empty()) return nullptr;
  return std::make_unique<ResultCache>(cache_dir_of(options.common) / "results.sqlite3");
}

namespace {

// How a task makes its lab: the same model, or the run's state with this cache folder.
nlohmann::json task_lab(const LoopOptions& options, const loop::RunState& run) {
  if (!options.simulate.empty()) return {{"simulate", fs::absolute(options.simulate).string()}, {"state", run}};
  return {{"state", run}, {"cache_dir", fs::absolute(cache_dir_of(options.common)).string()}};
}

// --devices all|0,1, checked: this host's GPUs, one model (nvidia-smi names them; a simulated
// lab's GPUs are taken as named).
std::vector<int> chosen_devices(const LoopOptions& options, Context& context) {
  const std::string& list = options.spread.devices;
  if (!options.simulate.empty()) {
    if (list == "all") throw input_error("--devices all with --simulate: name the GPUs (0,1)");
    return loop::parse_devices(list);
  }
  return loop::host_devices(context.runner, list);
}

std::unique_ptr<loop::Lab> spread_lab(std::unique_ptr<loop::Lab> local, const LoopOptions& options,
                                      const loop::RunState& run, Context& context) {
  const SpreadOptions& spread = options.spread;
  std::unique_ptr<loop::TaskExecutor> executor;
  fs::path stage = spread.stage;
  if (spread.executor == "slurm") {
    if (stage.empty()) throw input_error("--executor slurm needs a stage folder the nodes can read (--slurm-stage)");
    executor = std::make_unique<loop::SlurmExecutor>(
        context.runner, loop::SlurmSettings{.partition = spread.partition,
                                            .gpus_per_task = spread.gpus,
                                            .wait = std::chrono::seconds(static_cast<long long>(spread.minutes * 60)),
                                            .kopt = run::current_executable()});
  } else {
    // Each task is one GPU's share of a screen: hours would mean a hung kopt.
    executor = std::make_unique<loop::DeviceExecutor>(context.runner, chosen_devices(options, context),
                                                      run::current_executable(), std::chrono::hours(2));
    if (stage.empty()) stage = cache_dir_of(options.common) / "spread";
  }
  return std::make_unique<loop::SpreadLab>(
      std::move(local), std::move(executor),
      loop::SpreadSettings{.variants_per_task = spread.variants_per_task, .stage = stage, .lab = task_lab(options, run)});
}

std::unique_ptr<loop::Lab> local_lab(const LoopOptions& options, const loop::RunState& run, Context& context);

}  // namespace

std::unique_ptr<loop::Lab> make_lab(const LoopOptions& options, const loop::RunState& run, Context& context) {
  std::unique_ptr<loop::Lab> lab = local_lab(options, run, context);
  if (options.spread.executor != "slurm" && options.spread.devices.empty()) return lab;
  if (options.spread.executor == "slurm" && !options.spread.devices.empty()) {
    throw input_error("--devices is for this host's GPUs; on Slurm, --slurm-gpus sets a task's");
  }
  return spread_lab(std::move(lab), options, run, context);
}

namespace {

// The model's lab, held to the roofline of the run's spec where the spec declares its work. A
// model gives the times of the spec's own dims, so other dims cannot be simulated.
std::unique_ptr<loop::Lab> simulated_lab(const fs::path& model, const loop::RunState& run) {
  if (!run.dims.empty()) {
    throw input_error("--dim {} with --simulate: a lab model answers for the spec's own dims only; drop --dim, or "
                      "measure on a GPU", run.dims.front());
  }
  auto lab = std::make_unique<loop::SimulatedLab>(model);
  if (const std::optional<spec::CaseWork> work = loop::timed_case_work(run)) lab->hold_to_roofline(*work);
  return lab;
}

std::unique_ptr<loop::Lab> local_lab(const LoopOptions& options, const loop::RunState& run, Context& context) {
  if (!options.simulate.empty()) return simulated_lab(options.simulate, run);
  loop::require_inputs(run);
  loop::GpuLabSettings settings{.spec = run.spec,
                                .dims = parse_dims(run.dims),
                                .timed_case = run.settings.timed_case,
                                .include_dirs = {run.kernel.parent_path()},
                                .cache_dir = cache_dir_of(options.common),
                                .worker = worker_settings_of(options.common)};
  settings.bench.check.seed_count = run.settings.seeds;
  settings.bench.comparison.min_effect = run.settings.min_effect;
  settings.bench.settings.stopping.target_half_width = measure::half_width_for_min_effect(run.settings.min_effect);
  return std::make_unique<loop::GpuLab>(context, std::move(settings));
}

}  // namespace

loop::LoopContext progress_hooks(const CommonOptions& common, const std::filesystem::path& run_dir) {
  loop::LoopContext hooks;
  // The loop's steps go to standard error as lines, on a terminal or not: an agent reading a
  // pipe sees a long optimize move on (only --json keeps standard error for errors alone).
  hooks.progress = [terminal = progress_line_of(common), json = common.json,
                    log = run_dir / "kopt.log"](const std::string& line) {
    if (!json) terminal->print_above("kopt: " + line);
    // The log is the one file appended to, not replaced: a record of what ran, and when.
    // Best effort: before init has made the run folder there is no log yet, and a line that
    // cannot be written is no reason to stop the loop.
    try {
      append_to_file(log, utc_timestamp() + " " + line + "\n");
    } catch (const Error&) {
    }
  };
  return hooks;
}

LoopSession loop_session(const LoopOptions& options, const std::filesystem::path& run_dir) {
  LoopSession session{.cache = open_result_cache(options), .context = progress_hooks(options.common, run_dir)};
  session.context.cache = session.cache.get();
  return session;
}

nlohmann::json with_json_flag(nlohmann::json next) {
  next["command"] = next.at("command").get<std::string>() + " --json";
  return next;
}

nlohmann::json with_loop_flags(nlohmann::json next, const LoopOptions& options) {
  if (options.common.json) next = with_json_flag(std::move(next));
  std::vector<std::string> flags;
  if (!options.simulate.empty()) flags = {"--simulate", fs::absolute(options.simulate).string()};
  if (!options.common.cache_dir.empty()) {
    flags.insert(flags.end(), {"--cache-dir", fs::absolute(options.common.cache_dir).string()});
  }
  if (options.spread.executor == "slurm") {
    const SpreadOptions& s = options.spread;
    flags.insert(flags.end(), {"--executor", "slurm", "--slurm-stage", fs::absolute(s.stage).string(), "--slurm-time",
                               fmt::format("{}", s.minutes), "--slurm-gpus", std::to_string(s.gpus),
                               "--slurm-variants-per-task", std::to_string(s.variants_per_task)});
    if (!s.partition.empty()) flags.insert(flags.end(), {"--slurm-partition", s.partition});
  }
  if (!options.spread.devices.empty()) {
    flags.insert(flags.end(), {"--devices", options.spread.devices, "--variants-per-task",
                               std::to_string(options.spread.variants_per_task)});
    if (!options.spread.stage.empty()) flags.insert(flags.end(), {"--stage", fs::absolute(options.spread.stage).string()});
  }
  if (!flags.empty()) next["command"] = next.at("command").get<std::string>() + " " + shell_quote_command(flags);
  return next;
}

LoopOptions recorded_loop_options(const loop::RunFolder& run) {
  LoopOptions options;
  const fs::path env = run.root() / "env.json";
  if (!path_exists(env)) return options;
  const nlohmann::json recorded = loop::read_json(env);
  if (recorded.is_object() && recorded.value("simulated", false)) options.simulate = recorded.value("lab_model", "");
  return options;
}

std::string format_next_step(const nlohmann::json& next) {
  if (next.at("finished").get<bool>()) {
    return fmt::format("The run is finished ({}). Next: {}\n", next.at("stop_reason").get<std::string>(),
                       next.at("command").get<std::string>());
  }
  std::string text = fmt::format("Iteration {} ({}). Read:", next.at("iteration").get<int>(), next.at("phase").get<std::string>());
  for (const auto& f : next.at("read")) text += " " + f.get<std::string>();
  if (!next.at("write").empty()) {
    text += "\nWrite:";
    for (const auto& f : next.at("write")) text += "\n  " + f.get<std::string>();
    const std::string kernel_file = next.value("branch_kernel", "kernel.cu");  // a Triton run's: kernel.py
    text += fmt::format("\n(a branch is {}, or variant.json {{\"defines\": {{...}}}} to rebuild the best kernel with other -D "
                        "values; at most {} branches, fewer are fine)", kernel_file, next.value("branches_max", 0));
  }
  return text + fmt::format("\nThen: {}\n", next.at("command").get<std::string>());
}

void add_run_target_options(CLI::App& app, RunTarget& t) {
  app.add_option("KERNEL", t.target, "A .cu file, a folder with kopt.toml, or a kopt.toml (default: .)");
  app.add_option("--spec", t.spec, "Use this kopt.toml");
  app.add_option("--dim", t.dims, "Set a dim in every case: NAME=VALUE (repeatable)");
  app.add_option("-D,--define", t.defines, "The baseline's -DNAME=VALUE (repeatable)");
  app.add_option("--run", t.run, "The run folder (default: run_<UTC time> here)")->check(output_folder());
  loop::RunSettings& settings = t.settings;
  app.add_option("--iterations", settings.iterations, fmt::format("At most this many iterations (default: {})", settings.iterations))->check(CLI::Range(1, 1000));
  app.add_option("--branches", settings.branches, fmt::format("K: branches per iteration (default: {})", settings.branches))->check(CLI::Range(1, 256));
  app.add_option("--finalists", settings.finalists,
                 fmt::format("Re-measure this many of the best branches interleaved (default: {})", settings.finalists))
      ->check(CLI::Range(1, 16));
  // In percent, as bench and compare take it (one meaning per flag); the run keeps a fraction.
  app.add_option_function<double>(
         "--min-effect", [&settings](double percent) { settings.min_effect = percent / 100; },
         "Smallest difference, in percent, called faster or slower (default: 1)")
      ->check(number_between(0.01, 50));
  // Not --case: elsewhere --case narrows what runs; here every case is still checked.
  app.add_option("--timed-case", settings.timed_case,
                 "The case timed and profiled (default: the first); every case is checked");
  app.add_option("--seeds", settings.seeds,
                 fmt::format("How many seeds of fresh random inputs per case in each check (default: {})", settings.seeds))
      ->check(CLI::Range(1, 1000));
  app.add_option("--retries", settings.retries,
                 "How many times one method may be claimed again in the run, each time saying what changed "
                 "(methods.json's \"retry\"; default: 1)")
      ->check(CLI::Range(0, 100));
}

loop::InitRequest init_request(const RunTarget& t) {
  loop::InitRequest request{.kernel = t.target, .dims = t.dims, .settings = t.settings,
                            .run_dir = t.run.empty() ? fs::path(default_run_dir()) : fs::path(t.run)};
  if (!t.spec.empty()) request.spec = t.spec;
  for (auto& [name, value] : parse_defines(t.defines)) request.defines[name] = value;
  parse_dims(t.dims);  // bad --dim values are refused before anything runs
  return request;
}

loop::RunState provisional_state(const loop::InitRequest& request) {
  // The whole problem is read and bound (spec, kernel signature, cases, dims) here, so that a
  // bad input is refused before init creates the run folder.
  spec::load_problem(request.kernel, request.spec, parse_dims(request.dims));
  for (const auto& [name, value] : request.defines) spec::check_define(name, value, "-D");
  const spec::ProblemSpec located = spec::locate_problem(request.kernel, request.spec);
  loop::RunState state{.kernel = fs::absolute(located.kernel), .dims = request.dims, .settings = request.settings};
  if (located.spec_file) state.spec = fs::absolute(*located.spec_file);
  return state;
}

int write_summary(const std::string& run_dir, bool json) {
  const loop::RunFolder run(run_dir);
  const nlohmann::json summary = report::write_run_summary(run);
  if (json) std::cout << summary.dump(2) << "\n";
  else std::cout << report::format_run_summary(summary) << fmt::format("\nwrote {}\n", (run.root() / "summary.md").string());
  return 0;
}

int finalize_run(const LoopOptions& options, const std::string& run_dir, bool audit) {
  const loop::RunFolder run(run_dir);
  if (audit) {
    Context context = context_of(options.common);
    const loop::RunState state = run.load();
    const auto lab_for_case = [&](const std::string& case_name) {
      loop::RunState on_case = state;
      on_case.settings.timed_case = case_name;
      return make_lab(options, on_case, context);
    };
    loop::final_audit(run, lab_for_case, progress_hooks(options.common, run.root()));
  }
  return write_summary(run_dir, options.common.json);
}

namespace {

bool same_file(const fs::path& a, const fs::path& b) {
  return resolved_path(fs::absolute(a)) == resolved_path(fs::absolute(b));
}

// A setting given on the command line that the run was started with another value of.
template <typename T>
void require_same_setting(const CLI::App& app, const char* flag, const T& asked, const T& recorded) {
  if (app.count(flag) == 0 || asked == recorded) return;
  throw input_error("{} {}: the run was started with {} {}, and a resumed run keeps its settings (drop {}, or start a "
                    "new --run)", flag, fmt::to_string(asked), flag, fmt::to_string(recorded), flag);
}

}  // namespace

void require_resumed_as_asked(const CLI::App& app, const loop::InitRequest& asked, const loop::RunState& state) {
  const std::string run = asked.run_dir.string();
  if (app.count("KERNEL") > 0 && !same_file(spec::locate_problem(asked.kernel, asked.spec).kernel, state.kernel)) {
    throw input_error("{} holds a run of {}, not of {}: name that kernel to resume it, or start a new --run", run,
                      state.kernel.string(), asked.kernel.string());
  }
  if (app.count("--spec") > 0 && (!state.spec || !same_file(*asked.spec, *state.spec))) {
    throw input_error("--spec {}: the run in {} was started with {}; start a new --run for another spec",
                      asked.spec->string(), run, state.spec ? state.spec->string() : "no kopt.toml");
  }
  if (app.count("--dim") > 0 && asked.dims != state.dims) {
    throw input_error("--dim: the run in {} was started with {}; start a new --run for other dims", run,
                      state.dims.empty() ? "the spec's dims" : fmt::format("--dim {}", fmt::join(state.dims, " --dim ")));
  }
  if (app.count("--define") > 0 && asked.defines != state.baseline.defines) {
    throw input_error("-D: the run in {} was started from the baseline {}; start a new --run for another", run,
                      loop::describe_defines(state.baseline.defines));
  }
  const loop::RunSettings &a = asked.settings, &r = state.settings;
  require_same_setting(app, "--iterations", a.iterations, r.iterations);
  require_same_setting(app, "--branches", a.branches, r.branches);
  require_same_setting(app, "--finalists", a.finalists, r.finalists);
  require_same_setting(app, "--min-effect", 100 * a.min_effect, 100 * r.min_effect);
  require_same_setting(app, "--timed-case", a.timed_case, r.timed_case);
  require_same_setting(app, "--seeds", a.seeds, r.seeds);
  require_same_setting(app, "--retries", a.retries, r.retries);
}

int run_unattended(const LoopOptions& options, loop::OptimizeRequest request, bool new_run_on_change,
                   const CLI::App& app) {
  request.init.run_dir = loop::run_folder_to_use(request.init.run_dir, new_run_on_change);
  Context kopt_context = context_of(options.common);
  const loop::RunFolder run(request.init.run_dir);
  if (run.exists()) require_resumed_as_asked(app, request.init, run.load());
  const loop::RunState start = run.exists() ? run.load() : provisional_state(request.init);
  // The tuner's question is asked before any run folder exists.
  if (!request.generator && !run.exists()) loop::tunable_space(start.kernel, start.spec);
  std::unique_ptr<loop::Lab> lab = make_lab(options, start, kopt_context);
  LoopSession session = loop_session(options, run.root());
  loop::optimize(*lab, kopt_context.runner, request, session.context);
  return finalize_run(options, run.root().string(), true);
}

}  // namespace kopt::cli
