// kopt doctor: what this machine offers kopt (GPU, nvcc, Python, Nsight Compute), and how
// to fix what is missing. Exit 3 when kopt cannot check kernels here. The survey is
// doctor::survey_machine, which the loop also writes into a run's env.json.
#include <fmt/format.h>

#include <iostream>

#include "command.hpp"
#include "common_options.hpp"
#include "kopt/core/error.hpp"
#include "kopt/doctor/survey.hpp"

namespace kopt::cli {
namespace {

struct DoctorConfig {
  CommonOptions common;
  bool peaks = false;
  bool remeasure = false;
  bool no_ncu = false;
};

int run_doctor_command(const DoctorConfig& config) {
  Context context = context_of(config.common);
  const run::WorkerSettings worker = worker_settings_of(config.common);
  const doctor::Survey survey = doctor::survey_machine(
      context, {.worker = worker, .peaks = config.peaks, .remeasure = config.remeasure,
                .skip_ncu = config.no_ncu ? "--no-ncu" : ""},
      doctor::worker_gpu_probe(context, worker));
  if (config.common.json) {
    std::cout << doctor::survey_json(survey).dump(2) << "\n";
  } else {
    for (const doctor::Finding& f : survey.findings) {
      std::cout << fmt::format("{:<18} {:<4} {}\n", f.what, f.ok ? "ok" : "--", f.detail);
    }
    std::cout << (survey.can_check ? "kopt can check and time kernels here\n"
                                   : "kopt cannot run kernels here: it needs a GPU and nvcc\n");
  }
  return static_cast<int>(survey.can_check ? ExitCode::ok : ExitCode::environment);
}

}  // namespace

Command doctor_command() {
  return {"doctor", "Show the GPU, compiler, Python and profiler kopt can use here", [](CLI::App& app) {
            auto config = std::make_shared<DoctorConfig>();
            app.add_flag("--peaks", config->peaks,
                         "Measure DRAM bandwidth and FP32/tensor rates once and cache them for this device");
            app.add_flag("--no-ncu", config->no_ncu, "Skip the Nsight Compute probe (it profiles a test kernel)");
            app.add_flag("--remeasure", config->remeasure, "With --peaks: measure again even when cached");
            add_common_options(app, config->common);
            return [config] { return run_doctor_command(*config); };
          }};
}

}  // namespace kopt::cli
