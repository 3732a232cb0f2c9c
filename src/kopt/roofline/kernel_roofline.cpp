#include "kopt/roofline/kernel_roofline.hpp"

#include <fmt/format.h>

#include "kopt/core/error.hpp"
#include "kopt/core/files.hpp"
#include "kopt/measure/peak_measurement.hpp"
#include "kopt/run/device_info.hpp"
#include "kopt/spec/problem_work.hpp"

namespace kopt::roofline {
namespace {

// Measured where `kopt doctor --peaks` reached the rate, the datasheet's elsewhere: each
// ceiling says which (DevicePeaks::measured).
measure::DevicePeaks ceilings_for(const nlohmann::json& device, RooflineProbes& probes) {
  std::optional<measure::DevicePeaks> peaks = probes.peaks(device);
  if (!peaks) {
    throw environment_error("no peaks are known for {}: run kopt doctor --peaks to measure them",
                            device.value("name", std::string("this device")));
  }
  return *peaks;
}

// Degraded: time the kernel and divide the spec's work by the median. `checked`: the profile's
// passing check, made just before with request.profile.check; none: the bench checks.
RooflineAnalysis analytic_roofline(const KernelRooflineRequest& request, const verify::CheckReport* checked,
                                   const std::string& reason, RooflineProbes& probes) {
  const spec::Problem& problem = request.problem;
  if (!problem.spec.work.flops && !problem.spec.work.bytes) {
    throw input_error("{}: without counters the roofline needs the spec's [work] flops and bytes formulas", reason);
  }
  const spec::BoundCase& bound_case = problem.cases.front();
  spec::Problem one_case = problem;
  one_case.cases = {bound_case};
  const auto [median, device] = probes.time(one_case, request.profile.check, checked);
  return roofline_from_timing(median, spec::work_value(problem.spec.work.flops, bound_case),
                              spec::work_value(problem.spec.work.bytes, bound_case), ceilings_for(device, probes),
                              problem.precision_policy(), reason);
}

}  // namespace

RooflineProbes gpu_probes(verify::CheckContext& context, const measure::BenchOptions& bench) {
  return {
      .profile = [&context](const spec::Problem& problem, const profile::ProfileOptions& options) {
        return profile::run_profile(problem, options, context);
      },
      .time = [&context, bench](const spec::Problem& problem, const verify::CheckOptions& check,
                                const verify::CheckReport* checked) {
        measure::BenchOptions options = bench;
        options.time_reference = false;
        options.check = check;  // the profile's, whole: `checked` was asked exactly these
        options.kernel_defines.clear();
        std::vector<verify::CheckReport> own;
        if (checked != nullptr) own.push_back(*checked);
        const measure::BenchReport report = measure::run_bench({problem}, options, context, own.empty() ? nullptr : &own);
        if (!report.passed() || report.variants.empty()) {
          throw Error(ExitCode::kernel_failed,
                      fmt::format("timing for the analytic roofline failed: {}",
                                  report.flags.empty() ? "no samples" : report.flags.front()));
        }
        return std::pair{report.variants.front().summary.median, report.device};
      },
      .peaks = [&context](const nlohmann::json& device) {
        return measure::best_known_peaks(context.cache_dir, device.get<run::DeviceInfo>());
      }};
}

KernelRoofline kernel_roofline(const KernelRooflineRequest& request, RooflineProbes& probes) {
  const spec::Problem& problem = request.problem;
  const std::filesystem::path& dir = request.profile.out_dir;
  KernelRoofline result;
  std::string reason = "--analytic: no profile was taken";
  const verify::CheckReport* checked = nullptr;
  if (!request.analytic) {
    result.profile = probes.profile(problem, request.profile);
    const profile::ProfileReport& report = *result.profile;
    profile::write_profile_files(report, dir);
    if (report.kernel_failed()) return result;
    checked = &report.check;  // passed (else the kernel failed), just now or by the loop's measurement
    if (report.evidence()) {
      const spec::BoundCase* found = problem.find_case(report.case_name);
      const spec::BoundCase& bound_case = found != nullptr ? *found : problem.cases.front();
      result.analysis = roofline_from_profile(*report.whole, *report.map, ceilings_for(report.check.device, probes),
                                              problem.precision_policy(), spec::work_value(problem.spec.work.flops, bound_case));
    } else {
      reason = report.reason;
    }
  }
  if (!result.analysis) result.analysis = analytic_roofline(request, checked, reason, probes);
  write_file_atomic(dir / "roofline.json", roofline_analysis_json(*result.analysis).dump(2) + "\n");
  return result;
}

}  // namespace kopt::roofline
