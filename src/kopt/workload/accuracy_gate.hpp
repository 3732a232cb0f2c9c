#pragma once
// The accuracy gate: a candidate run's output against the original's, before any of the
// candidate's times count. A file compared element by element (|c - o| <= atol + rtol |o|,
// NaN only against NaN, the rule kopt check applies to kernels), or the user's own gate
// command, which gets both files and says pass (exit 0) or fail.

#include <filesystem>
#include <string>

#include "kopt/core/process.hpp"
#include "kopt/workload/workload_spec.hpp"

namespace kopt::workload {

struct GateResult {
  bool passed = false;
  std::string reason;   // why it failed, or what passed ("max |error| 2e-06 over 4096 elements")
};

GateResult judge_output(const AccuracyGate& gate, const std::filesystem::path& folder,
                        const std::filesystem::path& original_output, const std::filesystem::path& candidate_output,
                        ProcessRunner& runner, double timeout_seconds);

}  // namespace kopt::workload
