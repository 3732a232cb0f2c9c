#pragma once
// Batches of calls per sample, for kernels of a few microseconds (issue 17; docs/measurement.md,
// "Short kernels: batched samples"). With one call per sample a 2 µs kernel is resolution-
// limited: one 32 ns tick of the event timer is 1.6 % of it. A sample that holds n calls
// divides the tick among them, so the worker times n back-to-back calls between one pair of
// events, each call on an argument set of its own whose inputs were generated fresh from a
// secret seed of their own and whose outputs were poisoned, all before the L2 flush: every
// call reads inputs nobody has touched since the flush, and no call can find another's result.
// Each call keeps its own seed and output digest, so the audit of timed calls
// (timed_call_audit.hpp) re-runs any single call of any batch.
//
// This file is the plan and the bookkeeping, pure and tested without a GPU; the worker's CUDA
// side is measure/batch_arguments.hpp and measure/bench_job.cpp.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kopt/measure/bench_job.hpp"
#include "kopt/spec/problem_spec.hpp"

namespace kopt::measure {

// A sample lasts at least this long: the tick is then ≤ 0.07 % of it (32 ns on the H200),
// below a quarter of the default 1 % minimum effect, and the cost of the event pair and of
// the blocker's release is shared by the calls.
inline constexpr double kBatchSampleSeconds = 50e-6;
// The calls of one sample at most, by default (--max-calls-per-sample): 64 calls of a
// 0.8 µs kernel make a 50 µs sample; shorter kernels are rare, and each call costs an
// argument set of device memory and its preparation before every sample.
inline constexpr int kDefaultMaxCallsPerSample = 64;
// The most --max-calls-per-sample accepts (the worker's mapped digest slots are sized for it).
inline constexpr int kCallsPerSampleLimit = 1024;
// The argument sets of a batch take at most this share of the device's free memory when the
// case starts: the kernel's own allocations (scratch, workspaces) still find room.
inline constexpr double kBatchMemoryShare = 0.25;

// The timing method, for keys of cached measurements: a screen result cached under an earlier
// method (one call per sample) is not comparable with one measured now, so the loop's result
// cache keys on this (loop/run_loop.cpp, screen_key). Change it when what a sample is changes.
inline constexpr std::string_view kTimingMethod = "samples of >= 50 us: batches of calls, each on its own inputs";

// n = ceil(kBatchSampleSeconds / one call), clamped to [1, max_calls]. A call of no
// measurable time (0: under one tick) gets max_calls.
int calls_per_batch(double one_call_seconds, int max_calls);

// Device bytes of one argument set of the case: every buffer with its two guards.
std::int64_t argument_set_bytes(const spec::BoundCase& bound_case);

// How many argument sets a batch gets: `wanted`, or fewer when `wanted` sets would take more
// than kBatchMemoryShare of `free_bytes` (the device's free memory with the first set already
// allocated); at least 1, the set the case already has.
int argument_sets_within(int wanted, std::int64_t bytes_per_set, std::int64_t free_bytes);

// How the L2 stood before the calls of a sample (bench.json "l2", per variant).
inline constexpr std::string_view kL2FlushedPerCall = "flushed before each call";
inline constexpr std::string_view kL2FlushedPerBatch = "flushed before each batch";
inline constexpr std::string_view kL2NotFlushed = "not flushed";
std::string_view l2_policy(TimingMode mode, int calls_per_sample);

// The table's note on a batched variant: how many calls, and the cold-L2 policy of the batch;
// `wanted` > `calls` when the device's memory allowed fewer argument sets than n.
std::string batch_note(TimingMode mode, int calls, int wanted);

// What one sample measured: the event and host times of all its calls together, the SM clock
// before it, and the inputs' seed and outputs' digest of each argument set it used (one per
// call in a batch; one for a graph replay of `calls` calls on one set).
struct TimedBatch {
  double gpu_seconds = 0;
  double host_seconds = 0;
  double sm_clock_mhz = 0;  // 0: no probe
  int calls = 1;
  std::uint32_t witness_id = 0;  // under which kopt's parent saw the sample (0: not signalled)
  std::vector<std::uint64_t> seeds;
  std::vector<std::optional<std::uint64_t>> digests;  // nullopt: the library cannot digest
  // A probe batch (BatchRule): each call ended at an event of its own, and call_seconds holds
  // each call's event time, from the end of the call before it to its own end. Not kept as a
  // sample: the events between the calls cost each about a microsecond (H100, 2026-12-07).
  bool probe = false;
  std::vector<double> call_seconds;
  // Not to be kept: held while solve sent work outside the default stream's order, which may
  // have started before the start event (bench_job.cpp, note_outside_work).
  bool discarded = false;
};

// data/witness.toml [batch]: how unlike the calls of a batch may take (call_spread).
struct BatchRule {
  double call_spread_limit = 0;
  double spread_min_ticks = 0;
  std::uint64_t probe_one_in = 0;  // about one batch in this many is a probe
};
const BatchRule& batch_rule();

// How unlike the calls of one batch took: the longest call's event time over the shortest's
// (honest calls of one kernel on inputs alike take alike times; a call that did another's work
// takes longer, the other shorter). nullopt when it cannot be told: fewer than two calls, or a
// mean call under `min_ticks` ticks of the event timer, where the tick alone makes them differ.
// A call under one tick counts as one tick.
std::optional<double> call_spread(const std::vector<double>& call_seconds, double tick_seconds, double min_ticks);

// Adds one sample to `samples`: the per-call times (the batch's ÷ calls) to gpu_seconds and
// host_seconds, the clock, every call's seed and digest to sample_seeds and sample_digests.
// A probe adds only the spread of its calls' times to batch_call_spread (where call_spread
// tells one). A sample taken below `min_clock_mhz` is not kept, its calls with it, and is
// counted in throttled_discarded; nor is a discarded one. Returns the per-call time of a kept
// sample.
std::optional<double> record_batch(VariantSamples& samples, const TimedBatch& batch, double min_clock_mhz,
                                   double spread_min_ticks = 8);

// Every call's digest as sample_digests keeps it: one per seed, 0 where none was taken.
std::vector<std::uint64_t> recorded_digests(const TimedBatch& batch);

}  // namespace kopt::measure
