#include "kopt/workload/workload_prediction.hpp"

#include <algorithm>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "kopt/core/error.hpp"

namespace kopt::workload {
namespace {

using nlohmann::json;

bool replaced(const std::string& name, const std::vector<std::string>& patterns) {
  return std::ranges::any_of(patterns, [&](const std::string& p) { return name.find(p) != std::string::npos; });
}

std::string percent(double share) { return fmt::format("{:.1f} %", 100 * share); }

}  // namespace

GainPrediction predict_gain(const Prediction& prediction, const system::SystemTrace& trace) {
  GainPrediction out;
  out.candidate = prediction.candidate;
  out.kernel_speedup = prediction.kernel_speedup;
  double first = 0, last = 0;
  bool any = false;
  std::set<std::string> matched;
  for (const system::Activity& activity : trace.activities) {
    first = any ? std::min(first, activity.start_s) : activity.start_s;
    last = any ? std::max(last, activity.end_s) : activity.end_s;
    any = true;
    if (activity.kind != system::ActivityKind::kernel || !replaced(activity.name, prediction.kernels)) continue;
    out.replaced_seconds += activity.end_s - activity.start_s;
    ++out.replaced_calls;
    matched.insert(activity.name);
  }
  if (matched.empty()) {
    throw input_error("{}: no kernel of the trace matches [prediction] kernels ({})", prediction.trace,
                      fmt::join(prediction.kernels, ", "));
  }
  out.matched.assign(matched.begin(), matched.end());
  out.traced_seconds = last - first;
  out.replaced_share = out.traced_seconds > 0 ? std::min(1.0, out.replaced_seconds / out.traced_seconds) : 0;
  out.predicted_ratio = 1 - out.replaced_share * (1 - 1 / out.kernel_speedup);
  return out;
}

json reconcile(const GainPrediction& p, const PairedVerdict& measured, double min_effect) {
  const double r = measured.median_ratio;
  const bool inside = p.predicted_ratio >= measured.low && p.predicted_ratio <= measured.high;
  const bool close = std::abs(p.predicted_ratio - r) <= min_effect / 2;
  const double denominator = 1 - 1 / p.kernel_speedup;
  const double implied = denominator != 0 ? (1 - r) / denominator : 0;
  json out = {{"predicted_ratio", p.predicted_ratio}, {"measured_ratio", r}, {"measured_low", measured.low},
              {"measured_high", measured.high}, {"trace_share", p.replaced_share}, {"implied_share", implied}};
  if (inside || close) {
    out["agreement"] = "agree";
    out["explanation"] = fmt::format("the measured ratio {:.4f} [{:.4f}, {:.4f}] agrees with the predicted {:.4f}", r,
                                     measured.low, measured.high, p.predicted_ratio);
  } else if (r > p.predicted_ratio) {
    out["agreement"] = "measured_smaller";
    out["explanation"] = fmt::format(
        "the workload gained less than predicted: its ratio {:.4f} implies the replaced kernels' exposed share was {}, "
        "where the trace gave {}; {} of the workload's time that the prediction counted did not become gain: time the "
        "replaced kernels overlapped with other work (off the critical path), costs the candidate adds at its boundary "
        "(launches, copies, synchronisation, a layout change), or shapes and phases of the real run that the trace did not hold",
        r, percent(implied), percent(p.replaced_share), percent(p.replaced_share - implied));
  } else {
    out["agreement"] = "measured_larger";
    out["explanation"] = fmt::format(
        "the workload gained more than predicted: its ratio {:.4f} implies a share of {}, where the trace gave {}: the "
        "candidate changed more than the kernels named (its replacement boundary is wider: fewer launches, a fused "
        "neighbour, less memory traffic around it), or the trace's phase is not the measured one",
        r, percent(implied), percent(p.replaced_share));
  }
  return out;
}

void to_json(json& out, const GainPrediction& p) {
  out = {{"candidate", p.candidate},           {"traced_seconds", p.traced_seconds},
         {"replaced_seconds", p.replaced_seconds}, {"replaced_calls", p.replaced_calls},
         {"matched_kernels", p.matched},       {"replaced_share", p.replaced_share},
         {"kernel_speedup", p.kernel_speedup}, {"predicted_ratio", p.predicted_ratio},
         {"predicted_gain", p.predicted_ratio > 0 ? 1 / p.predicted_ratio : 0}};
}

}  // namespace kopt::workload
