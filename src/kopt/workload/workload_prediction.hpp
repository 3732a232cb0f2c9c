#pragma once
// Predicted against measured: what a trace of the original says a candidate can gain, and,
// once measured, whether the workload's paired verdict agrees. The prediction is Amdahl's:
// if the replaced kernels take a share f of the traced time and the new kernel is s times
// faster than they are, the workload's cost ratio is 1 - f (1 - 1/s). When the measurement
// disagrees, the share it implies, f' = (1 - r) / (1 - 1/s), says how much of the replaced
// kernels' traced time did not turn into the workload's gain (or how much more changed than
// they did): the replacement boundary the prediction missed.

#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "kopt/system/system_trace.hpp"
#include "kopt/workload/paired_statistics.hpp"
#include "kopt/workload/workload_spec.hpp"

namespace kopt::workload {

struct GainPrediction {
  std::string candidate;
  double traced_seconds = 0;        // the trace's span, first activity to last
  double replaced_seconds = 0;      // the kernels it names, summed
  int replaced_calls = 0;
  std::vector<std::string> matched; // the kernel names that matched
  double replaced_share = 0;        // f
  double kernel_speedup = 1;        // s
  double predicted_ratio = 1;       // 1 - f (1 - 1/s), as the workload's cost ratio
};

// Throws input_error when no kernel of the trace matches the names given.
GainPrediction predict_gain(const Prediction& prediction, const system::SystemTrace& trace);

// agree | measured_smaller | measured_larger, the implied share and a sentence that names the
// boundary the prediction missed.
nlohmann::json reconcile(const GainPrediction& prediction, const PairedVerdict& measured, double min_effect);

void to_json(nlohmann::json& out, const GainPrediction& prediction);

}  // namespace kopt::workload
