#pragma once
// Where a kernel stands against this device's ceilings: `kopt roofline` and the loop's profile
// step both call kernel_roofline, so the two cannot drift. Counters from a profile where
// Nsight Compute can read them; else (or when asked) the degraded analytic roofline: the spec's
// [work] formulas over the measured median time.

#include <filesystem>
#include <functional>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "kopt/measure/bench.hpp"
#include "kopt/measure/peaks.hpp"
#include "kopt/profile/profiler.hpp"
#include "kopt/roofline/roofline_analysis.hpp"
#include "kopt/spec/problem_spec.hpp"
#include "kopt/verify/check.hpp"

namespace kopt::roofline {

// What the roofline asks of the GPU, one seam each, so that tests answer without one.
struct RooflineProbes {
  // Runs the kernel under the profiler (profile::run_profile).
  std::function<profile::ProfileReport(const spec::Problem&, const profile::ProfileOptions&)> profile;
  // Times the one case of `problem` as `kopt bench` does, its kernel checked with `check` first
  // unless `checked` is a passing check of it made just before with those options (the
  // profile's, which the bench then times on: run_bench's `checked`). Its median seconds and the
  // device (bench.json's). Throws Error(kernel_failed) when it cannot be timed.
  std::function<std::pair<double, nlohmann::json>(const spec::Problem& problem, const verify::CheckOptions& check,
                                                  const verify::CheckReport* checked)>
      time;
  // The ceilings for the device (measure::best_known_peaks); none when none are known.
  std::function<std::optional<measure::DevicePeaks>(const nlohmann::json& device)> peaks;
};

// The probes on this machine's GPU, through kopt's workers; `bench` times the analytic case
// (its check options are the profile's, handed to `time`).
RooflineProbes gpu_probes(verify::CheckContext& context, const measure::BenchOptions& bench);

struct KernelRooflineRequest {
  spec::Problem problem;
  profile::ProfileOptions profile;  // .out_dir: where profile.json and roofline.json go
  bool analytic = false;            // skip the profiler: the degraded roofline straight away
};

struct KernelRoofline {
  std::optional<profile::ProfileReport> profile;  // none when skipped
  std::optional<RooflineAnalysis> analysis;       // none: the kernel failed (see profile)
};

// Profiles (unless analytic), writes the profile's files and roofline.json into
// request.profile.out_dir, and returns both. Without counters, the analytic roofline, whose
// reason says why. Throws input_error when that needs [work] formulas the spec lacks,
// environment_error when no ceilings are known for the device (`kopt doctor --peaks`), and
// Error(kernel_failed) when the kernel cannot be timed.
KernelRoofline kernel_roofline(const KernelRooflineRequest& request, RooflineProbes& probes);

}  // namespace kopt::roofline
