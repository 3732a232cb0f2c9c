// kopt lab-job JOB.json RESULT.json: one Slurm task's measurement, on the node it landed on
// (loop/slurm_lab.hpp). Started by sbatch for kopt itself; the lab is made as the submitting
// kopt made its own (the simulated lab, or the GPU with the run's state), never on Slurm again.
#include <nlohmann/json.hpp>

#include "command.hpp"
#include "kopt/core/error.hpp"
#include "kopt/core/files.hpp"
#include "kopt/loop/slurm_lab.hpp"
#include "loop_options.hpp"

namespace kopt::cli {
namespace {

int run_lab_job(const std::string& job_file, const std::string& result_file) {
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
  const loop::RunState state = lab.contains("state") ? lab.at("state").get<loop::RunState>() : loop::RunState{};
  Context context = context_of(options.common);
  const std::unique_ptr<loop::Lab> here = make_lab(options, state, context);
  write_file_atomic(result_file, loop::run_lab_job(*here, job).dump() + "\n");
  return 0;
}

}  // namespace

Command lab_job_command() {
  return {"lab-job", "Measure one Slurm task's variants on this node (used by kopt itself)", [](CLI::App& app) {
            auto files = std::make_shared<std::pair<std::string, std::string>>();
            app.add_option("JOB", files->first, "The task's job file (kopt.lab_job/1)")->required();
            app.add_option("RESULT", files->second, "Where to write its measurement")->required();
            app.group("");  // internal: hidden from --help
            return [files] { return run_lab_job(files->first, files->second); };
          }};
}

}  // namespace kopt::cli
