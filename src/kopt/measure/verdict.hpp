#pragma once
// Is B faster than A? A verdict from the bootstrap interval of the ratio of medians,
// time(B) / time(A), against a minimum effect worth calling (the noise threshold):
//   faster     the interval lies below 1 and the estimate is below 1 - min_effect
//   slower     the interval lies above 1 and the estimate is above 1 + min_effect
//   same       the interval lies inside [1 - min_effect, 1 + min_effect]
//   ambiguous  anything else: the data cannot support a call
// Below min_samples samples on either side the verdict is ambiguous whatever the numbers.
// The interval is widened by each side's timer resolution first (ratio_widened_by_resolution),
// so that times quantised to a tick never give a zero-width interval.

#include <span>
#include <string_view>

#include "kopt/measure/statistics.hpp"

namespace kopt::measure {

enum class Verdict { faster, slower, same, ambiguous };

std::string_view verdict_name(Verdict verdict);  // "faster", ...

struct Comparison {
  Verdict verdict = Verdict::ambiguous;
  RatioEstimate ratio;        // time(B) / time(A): below 1 means B is faster
  double speedup = 1;         // 1 / ratio: above 1 means B is faster
  double min_effect = 0.01;   // the threshold used; 1.0 = 100 %
};

struct ComparisonSettings {
  double min_effect = 0.01;
  double level = 0.95;
  int resamples = 2000;
  std::size_t min_samples = 5;
};

// Seconds per sample that one timer tick amounts to, for each side (0: exact times).
struct SampleResolutions {
  double a = 0;
  double b = 0;
};

// The rules above on one estimate of time(B) / time(A) and its interval (enough samples
// assumed): each boundary is strict for faster and slower, inclusive for same.
Verdict judge_ratio(const RatioEstimate& estimate, double min_effect);

Comparison compare_samples(std::span<const double> a, std::span<const double> b, const ComparisonSettings& settings = {},
                           SampleResolutions resolutions = {});

}  // namespace kopt::measure
