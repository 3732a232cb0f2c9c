#pragma once
// `kopt bench` and `kopt compare`: check each kernel, then time them interleaved in one
// worker, summarize every variant, give each a verdict against the first, and hold each
// against the roofline floor.

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kopt/measure/bench_job.hpp"
#include "kopt/measure/code_witness.hpp"
#include "kopt/run/gpu_idle.hpp"
#include "kopt/measure/peaks.hpp"
#include "kopt/measure/sample_witness.hpp"
#include "kopt/measure/statistics.hpp"
#include "kopt/measure/verdict.hpp"
#include "kopt/verify/check.hpp"

namespace kopt::measure {

// The case kopt bench times when none is named: the spec's [dims] case ("default"), where a
// kernel's performance is meant to be judged; the first case if there is none by that name.
const spec::BoundCase& perf_case(const spec::Problem& problem);

// perf_case: only that one (kopt bench and compare without --case or --all-cases: the other
// cases are there for correctness, and a 2 µs case timed beside a 200 µs one doubled the cost
// of a bench for a number nobody asked for); all: every case of the problem.
enum class TimedCases { perf_case, all };
std::vector<spec::BoundCase> timed_cases(const spec::Problem& problem, TimedCases which);

struct BenchOptions {
  verify::CheckOptions check;
  BenchSettings settings;
  ComparisonSettings comparison;
  bool time_reference = true;   // a .cu reference is timed beside the kernels, a .py one after them
  // Which of the problem's cases are timed; every case is checked either way.
  TimedCases timed_cases = TimedCases::all;
  // The audit of timed calls (timed_call_audit.hpp, tolerance_audit.hpp). Off only for a look
  // no verdict rests on (the loop's first look): every variant it passes on is timed again,
  // audited, before anything is decided.
  bool audit_timed_calls = true;
  // Per kernel, in the order given to run_bench: extra -D defines after check.defines, and
  // the label (empty or missing: the file name). The loop's branches differ only here.
  std::vector<std::vector<std::pair<std::string, std::string>>> kernel_defines;
  std::vector<std::string> labels;
};

// The label of kernel `index` in the bench's variants: options.labels, else its file name
// (with "#index" where two kernels share one).
std::string kernel_label(const std::vector<spec::Problem>& kernels, std::size_t index, const BenchOptions& options);

// The check options of kernel `index`: check.defines, then its own.
verify::CheckOptions check_options_for(const BenchOptions& options, std::size_t index);

// One variant on one case, summarized.
struct VariantReport {
  std::string label;
  std::string case_name;
  VariantSamples samples;
  Summary summary;
  double flops = 0;                  // per call, from [work] (0: not given)
  double bytes = 0;
  double flops_per_second = 0;       // at the median
  double bytes_per_second = 0;
  double floor_seconds = 0;          // roofline floor from the peaks (0: unknown)
  bool below_floor = false;          // faster than possible: a wrong spec or a cheating kernel
  double median_host_gap_seconds = 0;  // median over samples of host time - event time
  bool escapes_events = false;       // work ran outside the events (a non-blocking stream)
  double median_batch_call_spread = 0;  // longest ÷ shortest call of a batch, median over batches (0: none)
  double median_sm_clock_mhz = 0;
  std::string recheck_failure;       // non-empty: wrong after the timing loop (cached results?)
  bool timed_calls_unverified = false;  // its outputs vary run to run: no digest to compare
  std::string unverified_reason;     // ... and why they were not verified within tolerance either
  bool interleaved = true;           // false: timed on its own (a .py reference), not A B A B
  // kopt's own clock around each sample against its reported time (sample_witness.hpp);
  // none for a variant the timing worker did not sample.
  std::optional<VariantWitness> witness;
};

// A variant with no time, and why (a numpy reference runs on the CPU): never a number.
struct UntimedVariant {
  std::string label;
  std::string case_name;
  std::string reason;
};

struct PairVerdict {
  std::string case_name;
  std::string baseline;
  std::string label;
  Comparison comparison;
  bool interleaved = true;           // false: the two were not sampled A B A B; drift counts
};

// Where the wall time of a bench went, in kopt's own process: what the verdict costs besides
// its samples (issue 17: a 229 µs kernel's bench took 25 s for 44 samples each).
struct BenchPhaseSeconds {
  double checks = 0;            // correctness checks of every kernel, their references included
  double timing = 0;            // the timing worker, from start to exit
  double audit = 0;             // the audit of timed calls (timed_call_audit.hpp)
  double python_reference = 0;  // a .py reference timed in its own runner
  double total = 0;
};

struct BenchReport {
  nlohmann::json device;
  std::string mode;
  BenchSettings settings;
  bool timed_calls_audited = true;       // BenchOptions::audit_timed_calls
  std::optional<DevicePeaks> peaks;
  std::vector<verify::CheckReport> checks;
  std::vector<VariantReport> variants;
  std::vector<PairVerdict> verdicts;     // every variant against the first kernel, per case
  std::vector<UntimedVariant> untimed;   // variants that could not be timed, with the reason
  std::vector<std::string> flags;        // one line per problem found while timing
  // One line per verdict that stands on less than it should, without failing the bench: a
  // variant whose timed calls could not be verified (outputs not bitwise reproducible).
  std::vector<std::string> warnings;
  // What a reader setting these figures beside another run's should know, though nothing is
  // wrong with them: a short median moves between runs more than its interval (between_runs.hpp).
  std::vector<std::string> notes;
  double wall_seconds = 0;               // the timing worker's
  WorkerPhases worker_phases;
  BenchPhaseSeconds phase_seconds;
  std::uint64_t order_seed = 0;          // the variants' order in each round was drawn from it
  double event_tick_seconds = 0;         // the CUDA event timer's tick, measured by the worker
  // `--witness ncu` (profile/ncu_witness.hpp): ncu's time per call of each variant beside
  // kopt's; null when not asked for.
  nlohmann::json ncu_witness = nullptr;
  CodeWitnessReport code_witness;        // the timing worker's code, looked at while it ran
  run::GpuIdleCheck idle;                // who else held a context on the GPU when timing began

  bool passed() const;                   // every check passed and nothing was flagged
};

// Each kernel is its own Problem (usually one spec with different kernel files). With
// `kernels` holding one kernel twice, the report is an A/A comparison: the noise floor.
// `checked`, when given, holds a passing check of each kernel made just before with
// check_options_for(options, i) on at least the timed cases (the loop's lab checks each variant
// alone first, so that one failing fails only itself): the bench times on those checks instead
// of checking every kernel again on fresh secret seeds, which would guarantee nothing more.
BenchReport run_bench(const std::vector<spec::Problem>& kernels, const BenchOptions& options,
                      verify::CheckContext& context, const std::vector<verify::CheckReport>* checked = nullptr);

nlohmann::json bench_report_to_json(const BenchReport& report);

// The flags of one variant, from its samples and the floor (pure; tested without a GPU).
void assess_variant(VariantReport& variant, const std::optional<DevicePeaks>& peaks,
                    const spec::PrecisionPolicy& precision, TimingMode mode);

}  // namespace kopt::measure
