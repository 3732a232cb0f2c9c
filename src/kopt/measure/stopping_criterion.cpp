#include "kopt/measure/stopping_criterion.hpp"

#include <algorithm>
#include <cmath>

namespace kopt::measure {

namespace {

// "Stable" means within this relative distance of the current relative stdev...
constexpr double stable_band = 0.05;
// ...for at least this many checks, reaching back at least 2 * min_samples samples.
constexpr std::size_t stable_checks = 10;

}  // namespace

std::string_view stop_reason_name(StopReason reason) {
  switch (reason) {
    case StopReason::still_running: return "still_running";
    case StopReason::converged: return "converged";
    case StopReason::noise_stable_above_target: return "noise_stable_above_target";
    case StopReason::timeout: return "timeout";
    case StopReason::max_samples: return "max_samples";
  }
  return "still_running";
}

StoppingCriterion::StoppingCriterion(StoppingSettings settings) : settings_(settings) {}

// Welford: delta = x - mean_{n-1}; mean_n = mean_{n-1} + delta / n; M2_n = M2_{n-1} + delta (x - mean_n).
void StoppingCriterion::add_sample(double seconds) {
  samples_.push_back(seconds);
  total_seconds_ += seconds;
  const double delta = seconds - mean_;
  mean_ += delta / static_cast<double>(samples_.size());
  m2_ += delta * (seconds - mean_);
}

// s / mean with s = sqrt(M2 / (n - 1)); 0 below 2 samples or for an all-zero mean.
double StoppingCriterion::relative_stdev() const {
  if (samples_.size() < 2 || mean_ == 0) return 0;
  return std::sqrt(m2_ / static_cast<double>(samples_.size() - 1)) / mean_;
}

// A standard deviation needs two samples, whatever min_samples says.
bool StoppingCriterion::minimums_met() const {
  return count() >= std::max<std::size_t>(settings_.min_samples, 2) && total_seconds_ >= settings_.min_gpu_seconds;
}

// Walks the record from the newest check back: every value must lie in
// [(1 - band) current, (1 + band) current] until the window holds stable_checks checks and
// reaches 2 * min_samples samples back. O(window), not O(count).
bool StoppingCriterion::noise_stable(double current) const {
  const std::size_t span = 2 * settings_.min_samples;
  std::size_t checks = 0;
  for (std::size_t i = history_.size(); i-- > 0;) {
    if (std::fabs(history_[i] - current) > stable_band * current) return false;
    if (++checks >= stable_checks && history_counts_[i] + span <= count()) return true;
  }
  return false;
}

StopReason StoppingCriterion::check(double elapsed_wall_seconds) {
  if (count() >= settings_.max_samples) return StopReason::max_samples;
  const bool minimums = minimums_met();
  const double current = relative_stdev();
  if (minimums && current <= settings_.target_relative_stdev) return StopReason::converged;
  if (minimums && (history_counts_.empty() || history_counts_.back() < count())) {
    history_.push_back(current);
    history_counts_.push_back(count());
  }
  if (elapsed_wall_seconds >= settings_.timeout_seconds) return StopReason::timeout;
  if (minimums && noise_stable(current)) return StopReason::noise_stable_above_target;
  return StopReason::still_running;
}

}  // namespace kopt::measure
