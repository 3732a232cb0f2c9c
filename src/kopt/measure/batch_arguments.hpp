#pragma once
// The worker's side of batched samples (call_batch.hpp): one argument set per call of a batch,
// and the output digests of all of them taken with one synchronization. Worker side only.

#include <cuda_runtime.h>

#include <memory>
#include <optional>
#include <vector>

#include "kopt/measure/call_batch.hpp"
#include "kopt/measure/cuda_timing.hpp"
#include "kopt/run/device_digest.hpp"
#include "kopt/run/kernel_arguments.hpp"
#include "kopt/run/kernel_library.hpp"
#include "kopt/verify/check_job.hpp"

namespace kopt::measure {

// The argument sets of one case: the first, which the warm-up and graph mode use, and as many
// more as a batch needs and the device's memory allows.
class ArgumentSets {
 public:
  explicit ArgumentSets(const spec::BoundCase& bound_case) : bound_case_(bound_case) {
    sets_.push_back(std::make_unique<run::KernelArguments>(bound_case));
  }

  // Grows to `wanted` sets, or fewer: within kBatchMemoryShare of the free memory, and none
  // past an allocation that fails for want of memory. Returns how many there are.
  int grow_to(int wanted) {
    std::size_t free = 0, total = 0;
    run::check_cuda(cudaMemGetInfo(&free, &total), "cudaMemGetInfo");
    const int fitting = argument_sets_within(wanted, argument_set_bytes(bound_case_), static_cast<std::int64_t>(free));
    while (size() < fitting) {
      try {
        sets_.push_back(std::make_unique<run::KernelArguments>(bound_case_));
      } catch (const run::CudaFailure& failure) {
        if (!failure.out_of_memory) throw;
        cudaGetLastError();  // an allocation's failure is not sticky; clear it for what follows
        break;
      }
    }
    return size();
  }

  int size() const { return static_cast<int>(sets_.size()); }
  run::KernelArguments& first() { return *sets_.front(); }
  // The first `count` sets, one per call of a sample.
  std::vector<run::KernelArguments*> first(int count) {
    std::vector<run::KernelArguments*> sets;
    for (int i = 0; i < count && i < size(); ++i) sets.push_back(sets_[static_cast<std::size_t>(i)].get());
    return sets;
  }

 private:
  const spec::BoundCase& bound_case_;
  std::vector<std::unique_ptr<run::KernelArguments>> sets_;
};

// The digest of every output of every set of a sample, all queued and then waited for once:
// a batch of 64 calls would otherwise wait 64 times.
class BatchDigests {
 public:
  explicit BatchDigests(int blocks) : blocks_(blocks) {}

  // One digest per set (combined over its outputs, as a check combines them); nullopt for
  // every set when the library cannot digest or a set has more outputs than there are slots.
  std::vector<std::optional<std::uint64_t>> take(const run::KernelLibrary& library,
                                                 const std::vector<run::KernelArguments*>& sets) {
    const std::vector<std::optional<std::uint64_t>> unknown(sets.size());
    std::vector<std::vector<const run::ArgumentData*>> outputs;
    std::size_t slots = 0;
    for (const run::KernelArguments* set : sets) {
      outputs.push_back(set->outputs());
      if (outputs.back().size() > kMaxOutputsPerSet) return unknown;
      slots += outputs.back().size();
    }
    if (slots > kSlots) return unknown;
    values_.clear(slots);  // the digest kernel adds into its slot
    std::size_t slot = 0;
    for (const auto& set : outputs) {
      for (const run::ArgumentData* out : set) {
        if (!library.launch_digest(out->device->data(), out->device->size(), values_.slot(slot++), blocks_)) {
          return unknown;
        }
      }
    }
    const std::vector<std::uint64_t> values = values_.read(slots);
    std::vector<std::optional<std::uint64_t>> digests;
    slot = 0;
    for (const auto& set : outputs) {
      std::vector<std::uint64_t> per_output;
      for (std::size_t i = 0; i < set.size(); ++i) per_output.push_back(values[slot++]);
      digests.push_back(verify::combine_output_digests(per_output));
    }
    return digests;
  }

 private:
  static constexpr std::size_t kMaxOutputsPerSet = 16;  // as CallInputs::digest
  static constexpr std::size_t kSlots = kMaxOutputsPerSet * kCallsPerSampleLimit;
  int blocks_;
  run::DigestSlots values_{kSlots};
};

}  // namespace kopt::measure
