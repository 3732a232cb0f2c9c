#include "kopt/measure/verdict.hpp"

namespace kopt::measure {

// On the interval [low, high] and estimate r of time(B) / time(A), with e = min_effect. Faster
// and slower are tried first: they also demand the estimate to clear the threshold, and an
// interval inside [1 - e, 1 + e] around such an estimate is not "the same".
Verdict judge_ratio(const RatioEstimate& estimate, double min_effect) {
  const ConfidenceInterval& ci = estimate.ci;
  if (ci.high < 1 && estimate.ratio < 1 - min_effect) return Verdict::faster;
  if (ci.low > 1 && estimate.ratio > 1 + min_effect) return Verdict::slower;
  if (ci.low >= 1 - min_effect && ci.high <= 1 + min_effect) return Verdict::same;
  return Verdict::ambiguous;
}

std::string_view verdict_name(Verdict verdict) {
  switch (verdict) {
    case Verdict::faster: return "faster";
    case Verdict::slower: return "slower";
    case Verdict::same: return "same";
    case Verdict::ambiguous: return "ambiguous";
  }
  return "ambiguous";
}

// The ratio and its interval are reported whenever both sides have samples, even when too few
// of them make the verdict ambiguous; with an empty side they keep their defaults (ratio 1).
Comparison compare_samples(std::span<const double> a, std::span<const double> b, const ComparisonSettings& settings,
                           SampleResolutions resolutions) {
  Comparison comparison{.min_effect = settings.min_effect};
  if (a.empty() || b.empty()) return comparison;
  comparison.ratio = ratio_widened_by_resolution(bootstrap_median_ratio(a, b, settings.level, settings.resamples),
                                                 median(a), resolutions.a, median(b), resolutions.b);
  comparison.speedup = 1 / comparison.ratio.ratio;
  const bool enough = a.size() >= settings.min_samples && b.size() >= settings.min_samples;
  comparison.verdict = enough ? judge_ratio(comparison.ratio, settings.min_effect) : Verdict::ambiguous;
  return comparison;
}

}  // namespace kopt::measure
