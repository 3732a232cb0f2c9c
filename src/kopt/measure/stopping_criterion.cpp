#include "kopt/measure/stopping_criterion.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "kopt/measure/statistics.hpp"

namespace kopt::measure {

std::string_view stop_reason_name(StopReason reason) {
  switch (reason) {
    case StopReason::still_running: return "still_running";
    case StopReason::median_precise: return "median_precise";
    case StopReason::resolution_limited: return "resolution_limited";
    case StopReason::timeout: return "timeout";
    case StopReason::max_samples: return "max_samples";
    case StopReason::budget_spent: return "budget_spent";
  }
  return "still_running";
}

StoppingCriterion::StoppingCriterion(StoppingSettings settings, double resolution_seconds)
    : settings_(settings), resolution_(std::max(0.0, resolution_seconds)) {}

// Welford: delta = x - mean_{n-1}; mean_n = mean_{n-1} + delta / n; M2_n = M2_{n-1} + delta (x - mean_n).
void StoppingCriterion::add_sample(double seconds, int calls) {
  sorted_.insert(std::upper_bound(sorted_.begin(), sorted_.end(), seconds), seconds);
  total_seconds_ += seconds * std::max(1, calls);
  const double delta = seconds - mean_;
  mean_ += delta / static_cast<double>(count());
  m2_ += delta * (seconds - mean_);
}

// s / mean with s = sqrt(M2 / (n - 1)); 0 below 2 samples or for an all-zero mean.
double StoppingCriterion::relative_stdev() const {
  if (count() < 2 || mean_ == 0) return 0;
  return std::sqrt(m2_ / static_cast<double>(count() - 1)) / mean_;
}

// Type 7 at q = 1/2 on the sorted samples: the middle one, or the mean of the middle two.
double StoppingCriterion::median() const {
  const std::size_t n = count();
  return (sorted_[(n - 1) / 2] + sorted_[n / 2]) / 2;
}

double StoppingCriterion::statistical_half_width() const {
  if (count() == 0) return std::numeric_limits<double>::infinity();
  const double m = median();
  if (!(m > 0)) return std::numeric_limits<double>::infinity();
  const ConfidenceInterval ci = median_ci_from_sorted(sorted_);
  return std::max(m - ci.low, ci.high - m) / m;
}

double StoppingCriterion::relative_half_width() const {
  const double statistical = statistical_half_width();
  return std::isinf(statistical) ? statistical : statistical + resolution_ / median();
}

// A half-width needs two samples, whatever min_samples says.
bool StoppingCriterion::minimums_met() const {
  return count() >= std::max<std::size_t>(settings_.min_samples, 2) && total_seconds_ >= settings_.min_gpu_seconds;
}

StopReason StoppingCriterion::check(double elapsed_wall_seconds) const {
  if (count() >= settings_.max_samples) return StopReason::max_samples;
  if (minimums_met()) {
    if (relative_half_width() <= settings_.target_half_width) return StopReason::median_precise;
    if (statistical_half_width() <= resolution_ / median()) return StopReason::resolution_limited;
  }
  if (elapsed_wall_seconds >= settings_.timeout_seconds) return StopReason::timeout;
  return StopReason::still_running;
}

CaseStopping::CaseStopping(std::vector<bool> budgeted)
    : budgeted_(std::move(budgeted)), reasons_(budgeted_.size(), StopReason::still_running) {}

bool CaseStopping::sampling(std::size_t variant) const {
  const StopReason reason = reasons_.at(variant);
  if (budgeted_[variant]) return reason == StopReason::still_running;
  return reason != StopReason::max_samples;
}

bool CaseStopping::update(const std::vector<const StoppingCriterion*>& criteria, double elapsed_wall_seconds) {
  const auto first_kernel = std::find(budgeted_.begin(), budgeted_.end(), false) - budgeted_.begin();
  const double kernel_seconds = static_cast<std::size_t>(first_kernel) < criteria.size()
                                    ? criteria[first_kernel]->total_seconds()
                                    : std::numeric_limits<double>::infinity();
  bool kernels_done = true;
  for (std::size_t i = 0; i < criteria.size(); ++i) {
    if (reasons_[i] != StopReason::still_running) continue;
    StopReason reason = criteria[i]->check(elapsed_wall_seconds);
    if (budgeted_[i] && reason == StopReason::still_running && criteria[i]->count() >= kMinBudgetedSamples &&
        criteria[i]->total_seconds() >= kernel_seconds) {
      reason = StopReason::budget_spent;
    }
    reasons_[i] = reason;
    kernels_done = kernels_done && (budgeted_[i] || reason != StopReason::still_running);
  }
  if (!kernels_done) return false;
  for (StopReason& reason : reasons_) {
    if (reason == StopReason::still_running) reason = StopReason::budget_spent;  // only budgeted ones are left
  }
  return true;
}

}  // namespace kopt::measure
