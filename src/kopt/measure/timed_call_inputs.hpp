#pragma once
// Fresh inputs, poisoned outputs and a clean persisting L2 before every call of the timing
// loop (docs/integrity.md, "Timed calls are verified"); the outputs' digests after it are
// BatchDigests' (batch_arguments.hpp).

#include <cstdint>

#include "kopt/core/secret.hpp"
#include "kopt/measure/cuda_timing.hpp"
#include "kopt/run/kernel_arguments.hpp"
#include "kopt/run/kernel_library.hpp"
#include "kopt_input_generator.h"

namespace kopt::measure {

// The poison of every timed call's pure outputs: NaN in every floating type.
constexpr unsigned char kTimedPoison = 0xFF;

// What surrounds every call of solve in the timing loop, outside the events: fresh inputs
// from a seed of their own, poisoned outputs and a persisting L2 with nothing in it before.
// A kernel therefore cannot recognise inputs it has seen, find
// its last answer still in place, or keep data resident from one sample to the next; and
// kopt can check afterwards, in another process, that what a timed call wrote is what the
// same kernel writes when it is verified (measure/timed_call_audit.hpp).
class CallInputs {
 public:
  CallInputs(std::uint64_t key, int blocks) : key_(key), blocks_(blocks) {}

  // Drawn from the OS as the call's inputs are made, outside every call of solve: no state of
  // this process (the key included, which a kernel can read) tells a kernel its next inputs,
  // so it cannot compute their answers ahead, in a warm-up or an earlier call.
  std::uint64_t next_seed() {
    return kopt_generator::mix64(key_ ^ kopt_generator::mix64(++calls_) ^ fresh_secret_64());
  }

  void prepare(const run::KernelLibrary& library, run::KernelArguments& arguments, std::uint64_t seed) const {
    arguments.regenerate_on_device(library, seed, kTimedPoison, blocks_);
    reset_persisting_l2();
  }

 private:
  // A persisting-L2 window that solve set stays in force across calls; resetting the lines
  // and zeroing the carve-out gives every sample the same L2 (errors: a device without it).
  // Lines persist only in a carve-out, so with none set (an honest kernel) nothing is reset:
  // the reset is a driver call on every sample otherwise.
  static void reset_persisting_l2() {
    std::size_t limit = 0;
    if (cudaDeviceGetLimit(&limit, cudaLimitPersistingL2CacheSize) == cudaSuccess && limit != 0) {
      cudaCtxResetPersistingL2Cache();
      cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, 0);
    }
    cudaGetLastError();
  }

  std::uint64_t key_;
  std::uint64_t calls_ = 0;
  int blocks_;
};

}  // namespace kopt::measure
