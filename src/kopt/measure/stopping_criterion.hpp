#pragma once
// When to stop taking samples. Like nvbench's stdrel criterion: collect until the relative
// standard deviation is under a target, with a minimum sample count and minimum accumulated
// GPU time; stop anyway at a timeout; and stop early, saying so, when the noise has settled
// above the target (more samples would not bring it down).
//
// check() decides, first match wins:
//   max_samples                count >= max_samples
//   converged                  count >= max(min_samples, 2), GPU time >= min_gpu_seconds and
//                              relative stdev <= target
//   timeout                    elapsed wall time >= timeout_seconds
//   noise_stable_above_target  minimums met, relative stdev above the target, and over a recent
//                              window of checks it stayed within +-5 % (relative) of its current
//                              value. The window: the newest checks, going back until it holds
//                              at least 10 checks and its oldest was made at least
//                              2 * min_samples samples ago; only checks made once the minimums
//                              were met are recorded, so a short record is not yet stable.
//   still_running              otherwise
// The relative stdev is kept incrementally (Welford), so check() after every sample costs
// O(window), independent of the number of samples.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace kopt::measure {

struct StoppingSettings {
  double target_relative_stdev = 0.005;  // 1.0 = 100 %
  std::size_t min_samples = 10;
  double min_gpu_seconds = 0.5;          // accumulated measured time
  double timeout_seconds = 15;           // wall time of the measurement
  std::size_t max_samples = 100000;
};

enum class StopReason { still_running, converged, noise_stable_above_target, timeout, max_samples };

std::string_view stop_reason_name(StopReason reason);  // "converged", ...

class StoppingCriterion {
 public:
  explicit StoppingCriterion(StoppingSettings settings);

  // Adds one sample (seconds of GPU time).
  void add_sample(double seconds);
  // Whether to stop, given the wall time spent so far.
  StopReason check(double elapsed_wall_seconds);

  std::size_t count() const { return samples_.size(); }
  double relative_stdev() const;

 private:
  StoppingSettings settings_;
  std::vector<double> samples_;
  double total_seconds_ = 0;
  // Relative stdev at each check after the minimums were met; a flat recent history above
  // the target means the noise has settled there.
  std::vector<double> history_;
  std::vector<std::size_t> history_counts_;  // count() at each entry of history_
  // Welford's running mean and sum of squared deviations M2 = sum (x_i - mean)^2.
  double mean_ = 0;
  double m2_ = 0;

  bool minimums_met() const;
  bool noise_stable(double current) const;
};

}  // namespace kopt::measure
