// kopt roofline KERNEL: where the kernel stands against this device's ceilings (measured by
// `kopt doctor --peaks`, else the datasheet), the gaps per axis, the binding resource and the
// next iteration's axis budget. The work is roofline::kernel_roofline, as in the loop.
#include <fmt/format.h>

#include <iostream>

#include "command.hpp"
#include "profile_options.hpp"
#include "kopt/core/files.hpp"
#include "kopt/report/profile_table.hpp"
#include "kopt/report/roofline_svg.hpp"
#include "kopt/roofline/kernel_roofline.hpp"

namespace kopt::cli {
namespace {

struct RooflineConfig {
  ProfileConfig profile;
  bool analytic = false;
};

int run_roofline_command(const RooflineConfig& config) {
  const spec::Problem problem = load_problem_with(config.profile.target, config.profile.problem);
  const std::filesystem::path out_dir = profile_out_dir(config.profile, problem);
  Context kopt_context = context_of(config.profile.common);
  verify::CheckContext context{kopt_context.runner, kopt_context.cache_dir, worker_settings_of(config.profile.common)};
  // The analytic roofline's timing checks with the profile's check options, or times on its check.
  roofline::RooflineProbes probes = roofline::gpu_probes(context, {.time_reference = false});
  const roofline::KernelRoofline result = roofline::kernel_roofline(
      {.problem = problem, .profile = profile_options_of(config.profile, out_dir), .analytic = config.analytic}, probes);
  if (!result.analysis) {
    std::cout << report::format_profile_report(*result.profile);
    return static_cast<int>(ExitCode::kernel_failed);
  }
  write_file_atomic(out_dir / "roofline.svg", report::render_roofline_svg(*result.analysis, problem.spec.name));
  if (config.profile.common.json) {
    std::cout << roofline::roofline_analysis_json(*result.analysis).dump(2) << "\n";
  } else {
    std::cout << fmt::format("kopt roofline {}\n", problem.spec.kernel.string()) << report::format_roofline(*result.analysis)
              << fmt::format("  wrote {}\n", (out_dir / "roofline.json").string());
  }
  return 0;
}

}  // namespace

Command roofline_command() {
  return {"roofline", "Place the kernel on this device's roofline: gaps per axis, binding resource, axis budget",
          [](CLI::App& app) {
            auto config = std::make_shared<RooflineConfig>();
            add_profile_options(app, config->profile);
            app.add_flag("--analytic", config->analytic,
                         "Skip Nsight Compute: use the spec's work formulas over the measured time (degraded)");
            return [config] { return run_roofline_command(*config); };
          }};
}

}  // namespace kopt::cli
