#pragma once
// Nsight Compute as a witness of kopt's timing (`kopt bench --witness ncu`, `kopt compare
// --witness ncu`; docs/integrity.md, "Outside witnesses").
//
// ncu measures each kernel's gpu__time_duration from outside the process's view of time: its
// counters are read by the profiler, not through the CUDA event timer or a host clock that the
// kernel's code can patch. The witness profiles a few calls of solve on the timed case
// (`--clock-control none`, the clocks a normal run sees; caches flushed as in cold timing,
// not in warm or graph mode), sums each call's kernel durations, and holds their median
// against kopt's median per call. The rule is one-sided: kopt's time per call also holds the
// gaps between a solve's launches, so kopt may be above ncu by any amount; ncu above kopt
// beyond the noise (data/witness.toml [ncu]) means kopt's samples were made short.
//
// It costs seconds per variant (ncu's start, one pass per kernel), so it is off by default.
// Where ncu or its counters are unavailable it says so (a WARN), and nothing is flagged.

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kopt/measure/bench.hpp"
#include "kopt/profile/ncu_csv.hpp"
#include "kopt/verify/check.hpp"

namespace kopt::profile {

inline constexpr std::string_view kNcuTimeMetric = "gpu__time_duration.sum";

// data/witness.toml [ncu].
struct NcuWitnessRule {
  double noise_fraction = 0.10;
  double noise_seconds = 5e-6;
  int calls = 5;
};
const NcuWitnessRule& ncu_witness_rule();  // loaded once; throws environment Error on a bad file

// ncu's kernel time of each profiled call: the launches in report order, split into `calls`
// equal consecutive groups (every call of solve launches the same kernels), each group's
// durations summed. An error line instead when they cannot be split so or a duration is
// missing.
struct NcuCallTimes {
  std::vector<double> seconds;
  std::string error;
  // The error is that the launches do not split into equal calls (none at all, or a count
  // the calls do not divide): solve launched differently under the profiler, which an honest
  // solve on the same inputs does not, so the witness fails rather than stands aside.
  bool uneven_launches = false;
};
NcuCallTimes ncu_call_seconds(const NcuReport& report, int calls);

// Whether ncu's time per call exceeds kopt's beyond the noise.
bool ncu_disagrees(double ncu_seconds, double kopt_seconds, const NcuWitnessRule& rule);

// One variant on one case, witnessed.
struct NcuTimeWitness {
  std::string label, case_name;
  std::string unavailable;           // non-empty: not witnessed, and why (ncu missing, no counters, ...)
  std::string failure;               // non-empty: solve failed under ncu (it passed its check): a FLAG
  std::vector<double> call_seconds;  // ncu's kernel time of each profiled call
  double ncu_median_seconds = 0;
  double kopt_median_seconds = 0;
  bool disagrees = false;
};

// What one variant's timed case must be profiled with: its checked library, and kopt's median.
struct NcuWitnessTarget {
  std::string label;
  const spec::Problem* problem = nullptr;
  std::filesystem::path library;
  spec::BoundCase bound_case;
  double kopt_median_seconds = 0;
  measure::TimingMode mode = measure::TimingMode::cold;
};

// Profiles the target under ncu and compares (the library function the CLI and the loop call).
NcuTimeWitness ncu_time_witness(const NcuWitnessTarget& target, verify::CheckContext& context,
                                const NcuWitnessRule& rule = ncu_witness_rule());

// Compares a report's call times with kopt's median (pure; tested on captured exports).
void judge_ncu_witness(NcuTimeWitness& witness, const NcuReport& report, const NcuWitnessRule& rule);

// The FLAG line of a witness (none when it agrees or was unavailable).
std::optional<std::string> ncu_witness_flag(const NcuTimeWitness& witness, const NcuWitnessRule& rule);

// `--witness ncu`: every kernel variant of a finished bench (not the reference) on every case it
// was timed on; flags and WARNs go into the report, the numbers into report.ncu_witness.
void add_ncu_witness(measure::BenchReport& report, const std::vector<spec::Problem>& kernels,
                     const measure::BenchOptions& options, verify::CheckContext& context);

nlohmann::json ncu_witness_to_json(const NcuTimeWitness& witness);

}  // namespace kopt::profile
