#include "kopt/workload/paired_statistics.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include <nlohmann/json.hpp>

#include "kopt/measure/statistics.hpp"

namespace kopt::workload {
namespace {

constexpr std::size_t kMinRounds = 5;

std::string verdict_of(double median, double low, double high, double min_effect) {
  if (high < 1 && median < 1 - min_effect) return "better";
  if (low > 1 && median > 1 + min_effect) return "worse";
  if (low >= 1 - min_effect && high <= 1 + min_effect) return "same";
  return "ambiguous";
}

int sign(double x) { return (x > 0) - (x < 0); }

}  // namespace

Resolution resolution_of(std::span<const double> values, double level) {
  Resolution out;
  out.runs = values.size();
  if (values.empty()) return out;
  out.median = measure::median(values);
  const double mean = measure::mean(values);
  out.relative_stdev = mean != 0 ? measure::sample_stdev(values) / std::abs(mean) : 0;
  std::vector<double> deviations;
  for (double v : values) deviations.push_back(std::abs(v - out.median));
  out.relative_mad = out.median != 0 ? measure::median(deviations) / std::abs(out.median) : 0;
  const measure::ConfidenceInterval ci = measure::median_ci_from_order_statistics(values, level);
  out.half_width = out.median != 0 ? (ci.high - ci.low) / 2 / std::abs(out.median) : 0;
  return out;
}

PairedVerdict paired_verdict(std::span<const double> original, std::span<const double> candidate, Direction direction,
                             double min_effect, double level) {
  PairedVerdict out;
  std::vector<double> ratios;
  for (std::size_t i = 0; i < std::min(original.size(), candidate.size()); ++i) {
    const double numerator = direction == Direction::lower ? candidate[i] : original[i];
    const double denominator = direction == Direction::lower ? original[i] : candidate[i];
    if (!(denominator > 0) || !(numerator >= 0)) continue;  // a ratio of a zero or negative metric says nothing
    ratios.push_back(numerator / denominator);
    if (numerator < denominator) ++out.rounds_better;
  }
  out.rounds = ratios.size();
  if (ratios.empty()) return out;
  out.median_ratio = measure::median(ratios);
  const measure::ConfidenceInterval ci = measure::median_ci_from_order_statistics(ratios, level);
  out.low = ci.low;
  out.high = ci.high;
  out.verdict = out.rounds < kMinRounds ? "ambiguous" : verdict_of(out.median_ratio, out.low, out.high, min_effect);
  return out;
}

ConstraintCheck check_constraint(std::string metric, double max_worse, std::span<const double> original,
                                 std::span<const double> candidate, Direction direction, double level) {
  ConstraintCheck out{std::move(metric), max_worse, {}, "unproven"};
  out.ratio = paired_verdict(original, candidate, direction, max_worse, level);
  if (out.ratio.rounds < kMinRounds) return out;
  if (out.ratio.high <= 1 + max_worse) {
    out.status = "kept";
  } else if (out.ratio.median_ratio > 1 + max_worse) {
    out.status = "broken";
  }
  return out;
}

Drift drift_of(std::span<const double> values, double min_effect) {
  Drift out;
  out.runs = values.size();
  const std::size_t n = values.size();
  if (n < 3) return out;
  std::vector<double> slopes;
  long long s = 0;
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = i + 1; j < n; ++j) {
      slopes.push_back((values[j] - values[i]) / static_cast<double>(j - i));
      s += sign(values[j] - values[i]);
    }
  }
  const double median = measure::median(values);
  out.slope_per_run = median != 0 ? measure::median(slopes) / std::abs(median) : 0;
  out.session_change = out.slope_per_run * static_cast<double>(n - 1);
  const double pairs = static_cast<double>(n * (n - 1)) / 2;
  out.kendall_tau = static_cast<double>(s) / pairs;
  const double variance = static_cast<double>(n * (n - 1) * (2 * n + 5)) / 18;
  const double z = s == 0 ? 0 : (static_cast<double>(s) - sign(static_cast<double>(s))) / std::sqrt(variance);
  out.p_value = std::erfc(std::abs(z) / std::sqrt(2.0));
  out.significant = out.p_value < 0.05 && std::abs(out.session_change) >= min_effect / 2;
  return out;
}

void to_json(nlohmann::json& out, const Resolution& r) {
  out = {{"runs", r.runs}, {"median", r.median}, {"relative_stdev", r.relative_stdev},
         {"relative_mad", r.relative_mad}, {"half_width", r.half_width}};
}

void to_json(nlohmann::json& out, const PairedVerdict& v) {
  out = {{"rounds", v.rounds}, {"median_ratio", v.median_ratio}, {"low", v.low}, {"high", v.high},
         {"gain", v.gain()}, {"rounds_better", v.rounds_better}, {"verdict", v.verdict}};
}

void to_json(nlohmann::json& out, const ConstraintCheck& c) {
  out = {{"metric", c.metric}, {"max_worse", c.max_worse}, {"ratio", c.ratio}, {"status", c.status}};
}

void to_json(nlohmann::json& out, const Drift& d) {
  out = {{"runs", d.runs}, {"slope_per_run", d.slope_per_run}, {"session_change", d.session_change},
         {"kendall_tau", d.kendall_tau}, {"p_value", d.p_value}, {"significant", d.significant}};
}

}  // namespace kopt::workload
