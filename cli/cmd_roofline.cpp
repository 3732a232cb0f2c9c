// kopt roofline KERNEL: where the kernel stands against this device's ceilings (measured by
// `kopt doctor --peaks`, else the datasheet), the gaps per axis, the binding resource and the
// next iteration's axis budget. Counters from `kopt profile` where ncu can read them; else
// (or with --analytic) the spec's work formulas over the measured time, marked degraded.
#include <fmt/format.h>

#include <iostream>

#include "command.hpp"
#include "profile_options.hpp"
#include "kopt/core/files.hpp"
#include "kopt/measure/bench.hpp"
#include "kopt/measure/peak_measurement.hpp"
#include "kopt/report/profile_table.hpp"
#include "kopt/report/roofline_svg.hpp"
#include "kopt/roofline/roofline_analysis.hpp"
#include "kopt/spec/problem_work.hpp"

namespace kopt::cli {
namespace {
namespace fs = std::filesystem;

struct RooflineConfig {
  ProfileConfig profile;
  bool analytic = false;
};

// Measured where `kopt doctor --peaks` reached the rate, the datasheet's elsewhere: each
// ceiling says which (DevicePeaks::measured).
measure::DevicePeaks ceilings_for(const nlohmann::json& device_json, const fs::path& cache_dir) {
  const run::DeviceInfo device = device_json.get<run::DeviceInfo>();
  std::optional<measure::DevicePeaks> peaks = measure::best_known_peaks(cache_dir, device);
  if (!peaks) {
    throw environment_error("no peaks are known for {}: run kopt doctor --peaks to measure them", device.name);
  }
  return *peaks;
}

// Degraded: time the kernel and divide the spec's work by the median.
roofline::RooflineAnalysis analytic_roofline(const RooflineConfig& config, const spec::Problem& problem,
                                             const spec::BoundCase& bound_case, const std::string& reason) {
  if (!problem.spec.work.flops && !problem.spec.work.bytes) {
    throw input_error("{}: without counters the roofline needs the spec's [work] flops and bytes formulas",
                      reason);
  }
  SystemProcessRunner runner;
  verify::CheckContext context{runner, cache_dir_of(config.profile.common), worker_settings_of(config.profile.common)};
  spec::Problem one_case = problem;
  one_case.cases = {bound_case};
  measure::BenchOptions options{.check = check_options_of(config.profile.problem), .time_reference = false};
  measure::BenchReport bench = measure::run_bench({one_case}, options, context);
  if (!bench.passed() || bench.variants.empty()) {
    throw Error(ExitCode::kernel_failed, fmt::format("timing for the analytic roofline failed: {}",
                                                     bench.flags.empty() ? "no samples" : bench.flags.front()));
  }
  const measure::DevicePeaks peaks = ceilings_for(bench.device, cache_dir_of(config.profile.common));
  return roofline::roofline_from_timing(bench.variants.front().summary.median,
                                        spec::work_value(problem.spec.work.flops, bound_case),
                                        spec::work_value(problem.spec.work.bytes, bound_case), peaks,
                                        spec::first_output_dtype(bound_case), reason);
}

void write_roofline_files(const roofline::RooflineAnalysis& analysis, const std::string& label, const fs::path& dir) {
  fs::create_directories(dir);
  write_file_atomic(dir / "roofline.json", roofline::roofline_analysis_json(analysis).dump(2));
  report::RooflineChart chart{.bytes_per_second = analysis.inputs.peak_bytes_per_second,
                              .compute_ceilings = {{analysis.compute_ceiling, analysis.inputs.peak_flop_per_second}},
                              .title = label + (analysis.degraded ? " (analytic: no counters)" : "")};
  chart.points.push_back({label, analysis.point.arithmetic_intensity.value_or(0.0),
                          analysis.inputs.achieved_flop_per_second});
  write_file_atomic(dir / "roofline.svg", report::render_roofline_svg(chart));
}

int run_roofline_command(const RooflineConfig& config) {
  spec::Problem problem = load_problem_with(config.profile.target, config.profile.problem);
  fs::path out_dir = config.profile.out.empty() ? problem.spec.kernel.parent_path() / "profile"
                                                : fs::path(config.profile.out);
  std::string reason = "--analytic: no profile was taken";
  std::optional<roofline::RooflineAnalysis> analysis;
  if (!config.analytic) {
    ProfileRun run = run_profile_from_config(config.profile);
    profile::write_profile_files(run.report, out_dir);
    if (profile_exit_code(run.report) == ExitCode::kernel_failed) {
      std::cout << report::format_profile_report(run.report);
      return static_cast<int>(ExitCode::kernel_failed);
    }
    if (run.report.evidence()) {
      const spec::BoundCase* found = problem.find_case(run.report.case_name);
      const spec::BoundCase& bound_case = found != nullptr ? *found : problem.cases.front();
      const measure::DevicePeaks peaks = ceilings_for(run.report.check.device, cache_dir_of(config.profile.common));
      analysis = roofline::roofline_from_profile(*run.report.whole, peaks, spec::first_output_dtype(bound_case),
                                                 spec::work_value(problem.spec.work.flops, bound_case));
    } else {
      reason = run.report.reason;
    }
  }
  if (!analysis) analysis = analytic_roofline(config, problem, problem.cases.front(), reason);
  write_roofline_files(*analysis, problem.spec.name, out_dir);
  if (config.profile.common.json) {
    std::cout << roofline::roofline_analysis_json(*analysis).dump(2) << "\n";
  } else {
    std::cout << fmt::format("kopt roofline {}\n", problem.spec.kernel.string())
              << report::format_roofline(*analysis)
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
