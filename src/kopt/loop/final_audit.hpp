#pragma once
// The run's last measurement (`kopt finalize`, `kopt optimize`): the final champion against
// the original baseline, interleaved in one measurement per case of the spec, judged by paired
// statistics — the time ratio of the two within each round of sampling, and the bootstrap
// interval of the median of those ratios. The speedup summary.md and the report quote is
// this one, not a division of medians measured in different sessions (docs/loop.md).

#include <cstddef>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "kopt/loop/lab.hpp"
#include "kopt/loop/run_loop.hpp"
#include "kopt/loop/run_state.hpp"

namespace kopt::loop {

inline constexpr std::string_view kAuditSchema = "kopt.audit/1";

// The champion against the baseline over rounds of interleaved sampling: sample i of each was
// taken in round i, so time(champion)_i / time(baseline)_i is one paired ratio.
struct PairedRatio {
  std::size_t rounds = 0;
  double median_ratio = 1;     // median of the per-round ratios: below 1, the champion is faster
  double low = 1, high = 1;    // its 95 % percentile-bootstrap interval, widened by the timer's tick
  std::size_t rounds_faster = 0;  // rounds in which the champion took less time
  std::string verdict;         // faster | slower | same | ambiguous, by measure/verdict.hpp's rule
};

struct PairedSamples {
  std::span<const double> baseline, champion;
  double baseline_resolution = 0, champion_resolution = 0;  // seconds per sample of one timer tick
};

PairedRatio paired_ratio(const PairedSamples& samples, double min_effect);

// A lab that times on the named case of the run's spec.
using LabForCase = std::function<std::unique_ptr<Lab>(const std::string& case_name)>;

// The case names of the run's spec, in its order (the timed case is one of them).
std::vector<std::string> run_case_names(const RunState& state);

// Writes RUN/audit.json (kopt.audit/1) and returns it. Every case is measured in one
// measurement where the lab can (Lab::measures_every_case: each variant checked once), else
// one case at a time. An audit of the same baseline and best
// already there is returned as it is (finalize run twice measures once). A run whose best is
// still the baseline has nothing to audit: verdict "no_champion", nothing measured.
nlohmann::json final_audit(const RunFolder& run, const LabForCase& lab_for_case, const LoopContext& hooks = {});

}  // namespace kopt::loop
