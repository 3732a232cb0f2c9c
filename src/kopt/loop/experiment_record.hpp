#pragma once
// The experiment behind each branch, written by the driver beside the branch's kernel.cu or
// variant.json: iterN/branches/bK/experiment.json (kopt.experiment/1) —
//   {"hypothesis": "the A loads are uncoalesced; staging them in shared memory fixes that",
//    "expected_gain_percent": [10, 30], "cost": "16 KiB more shared memory per block"}
// what the branch tests, the speedup over the best it expects (a range, in percent) and what
// it costs (resources, risk, effort). `kopt close` refuses an iteration whose branches lack
// one, so every measured result can be held against what was expected (the handoff does).
// Other keys are kept and not read.

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "kopt/loop/run_state.hpp"

namespace kopt::loop {

inline constexpr std::string_view kExperimentSchema = "kopt.experiment/1";
inline constexpr std::string_view kExperimentFile = "experiment.json";

struct ExperimentRecord {
  std::string hypothesis;
  double expected_gain_low = 0, expected_gain_high = 0;  // percent faster than the best
  std::string cost;
};

// The record of the branch in `branch_dir`; input_error naming the file and what is wrong
// with it (missing, not JSON, a field absent or of the wrong type, an empty text, a range
// whose low end is above its high end).
ExperimentRecord read_experiment_record(const std::filesystem::path& branch_dir);

// The record when the branch has a valid one; none otherwise (for readers of a finished run).
std::optional<ExperimentRecord> experiment_record_if_any(const std::filesystem::path& branch_dir);

// Before a driver's close: every branch of the run's open iteration has a valid record
// (input_error on the first that has not). An iteration already measured is not checked again.
void require_experiment_records(const RunFolder& run);

}  // namespace kopt::loop
