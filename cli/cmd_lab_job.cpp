// kopt lab-job JOB.json RESULT.json [--device N]: one task of a spread measurement, on the GPU
// or Slurm node it was given (loop/spread_lab.hpp). Started by kopt itself (directly, or by
// sbatch); the lab is made as the starting kopt made its own (the simulated lab, or the GPU with
// the run's state), never spread again.
#include <nlohmann/json.hpp>

#include "command.hpp"
#include "kopt/core/error.hpp"
#include "kopt/core/files.hpp"
#include "kopt/loop/spread_lab.hpp"
#include "loop_options.hpp"

namespace kopt::cli {
namespace {

int run_lab_job(const std::string& job_file, const std::string& result_file, int device) {
  nlohmann::json job;
  try {
    job = nlohmann::json::parse(read_file(job_file));
  } catch (const nlohmann::json::exception& e) {
    throw input_error("{} is not a lab job: {}", job_file, e.what());
  }
  const nlohmann::json& lab = job.at("lab");
  LoopOptions options;
  options.simulate = lab.value("simulate", "");
  options.common.cache_dir = lab.value("cache_dir", "");
  options.common.device = device;
  const loop::RunState state = lab.contains("state") ? lab.at("state").get<loop::RunState>() : loop::RunState{};
  Context context = context_of(options.common);
  const std::unique_ptr<loop::Lab> here = make_lab(options, state, context);
  write_file_atomic(result_file, loop::run_lab_job(*here, job).dump() + "\n");
  return 0;
}

}  // namespace

Command lab_job_command() {
  return {"lab-job", "Measure one task of a spread measurement on this GPU or node (used by kopt itself)", [](CLI::App& app) {
            auto files = std::make_shared<std::pair<std::string, std::string>>();
            auto device = std::make_shared<int>(0);
            app.add_option("JOB", files->first, "The task's job file (kopt.lab_job/1)")->required();
            app.add_option("RESULT", files->second, "Where to write its measurement")->required();
            app.add_option("--device", *device, "The GPU to measure on (--devices: one per task)")->check(CLI::Range(0, 255));
            app.group("");  // internal: hidden from --help
            return [files, device] { return run_lab_job(files->first, files->second, *device); };
          }, true};
}

}  // namespace kopt::cli
