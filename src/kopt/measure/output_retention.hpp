#pragma once
// Keeping timed calls' outputs for a comparison within tolerance (docs/integrity.md, "Outputs
// that are not bitwise reproducible"). A variant whose check found its outputs vary between
// runs on the same inputs (float atomics) has no digest that a verifying run could match, so
// the timing worker keeps, in device memory beside the timing loop, the outputs of some of
// its timed calls: right after each call's digest (outside the timed window) it decides, from
// fresh OS randomness drawn after the call returned, whether to keep that call (a reservoir:
// every timed call is equally likely to be among the kept). At the end of each case it
// writes the kept outputs as .npy files, and their seeds go back in the worker's result
// (VariantSamples::kept_seeds, under the nonce); kopt's own process then picks some
// of them at random and compares them with the reference within the spec's tolerance
// (measure/tolerance_audit.hpp). A kernel cannot know while it runs whether its call is kept.
//
// Only variants marked BenchVariant::retain_outputs pay for this: honest deterministic
// kernels are verified by digest and keep nothing.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "kopt/measure/bench_job.hpp"
#include "kopt/run/kernel_arguments.hpp"

namespace kopt::measure {

// At most this many calls per variant and case are kept: more would only cost disk.
inline constexpr std::size_t kMaxRetainedCalls = 16;
// The kept outputs of all variants together use at most this much device memory, and at
// most a quarter of what is free when the case starts.
inline constexpr std::size_t kRetentionCeilingBytes = std::size_t{2} << 30;

// Where the outputs of the call on `seed` of variant `variant` on case `case_index` are kept,
// beneath the retention folder: one <output>.npy per output.
std::filesystem::path kept_call_dir(std::size_t variant, std::size_t case_index, std::uint64_t seed);

// How many calls of `bytes_per_call` output bytes one of `retaining_variants` variants may
// keep with `free_bytes` of device memory free: 0 when not even one fits.
std::size_t retention_capacity(std::size_t bytes_per_call, std::size_t free_bytes, std::size_t retaining_variants);

// Reservoir sampling (Algorithm R): the call offered after `offered_before` others is kept
// in `slot` when `keep`; `draw` is a fresh random number drawn after the call returned.
struct ReservoirChoice {
  bool keep = false;
  std::size_t slot = 0;
};
ReservoirChoice reservoir_choice(std::size_t offered_before, std::size_t capacity, std::uint64_t draw);

// Worker side: one per timing job. Does nothing for a job without a retention folder or for
// variants not marked retain_outputs.
class OutputRetention {
 public:
  explicit OutputRetention(const BenchJob& job);
  ~OutputRetention();
  OutputRetention(const OutputRetention&) = delete;
  OutputRetention& operator=(const OutputRetention&) = delete;

  // Sizes each retaining variant's device store for this case's outputs.
  void start_case(std::size_t case_index, const run::KernelArguments& arguments);
  // After a timed call of `variant` (its digest taken): maybe copies its outputs.
  void offer(std::size_t variant, std::uint64_t seed, const run::KernelArguments& arguments);
  // After a timed sample of `variant` (its digests taken): offers each of its calls, the one
  // on seeds[k] having written sets[k] (a batch holds several, each on an argument set).
  void offer_calls(std::size_t variant, const std::vector<std::uint64_t>& seeds,
                   const std::vector<run::KernelArguments*>& sets);
  // Writes the kept outputs of this case, records their seeds (or why none were kept) in
  // `case_samples` (this case's samples, in variant order), and frees the device stores.
  void finish_case(const run::KernelArguments& arguments, std::span<VariantSamples> case_samples);

 private:
  struct Store;
  std::size_t retaining_variants() const;

  const BenchJob& job_;
  std::size_t case_index_ = 0;
  std::vector<std::unique_ptr<Store>> stores_;  // per job variant; null: not retaining
};

}  // namespace kopt::measure
