#pragma once
// A Python reference timed by the bundled runner (python/kopt_reference_runner.py, "time"
// in its manifest): the same cold/warm sample and stopping rule as the worker, but in its
// own process after the worker has finished, so never interleaved with the kernels. Only
// the torch backend on a GPU is timed; numpy on the CPU says why not, and kopt reports no
// number for it.

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "kopt/measure/bench_job.hpp"

namespace kopt::measure {

struct ReferenceTiming {
  bool timed = false;
  std::string reason;       // why not, when not timed
  VariantSamples samples;   // label "reference"; no SM clock (the runner has no probe)
};

// The manifest's "time" object for these settings, for a device with an L2 of l2_bytes, whose
// event timer ticks every resolution_seconds; budget_seconds: the GPU time after which the
// reference stops (budget_spent, once it has 5 samples): what the first kernel took; 0: none.
nlohmann::json reference_time_request(const BenchSettings& settings, std::int64_t l2_bytes, double resolution_seconds,
                                      double budget_seconds);

// The runner's "timing" object for one case; throws input_error when it is malformed.
ReferenceTiming reference_timing_from_json(const nlohmann::json& timing, const std::string& case_name);

}  // namespace kopt::measure
