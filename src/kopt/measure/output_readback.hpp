#pragma once
// kopt's own read of a timed sample's outputs, before their digests (docs/integrity.md,
// "Outputs read back before the digests").
//
// kopt's digests of a sample's outputs run in the kernel's library (the shim compiled into it),
// launched through that library's own CUDA runtime, whose entry points are the kernel's data.
// A kernel that redirects them could skip work while timed and do it when kopt launches the
// digest, after the sample's end signal: no clock sees that work and the digests agree. So,
// for a share of the samples chosen by kopt's own secret draw, and for the last sample of each
// variant, the worker copies every output to the host through kopt's own runtime right after
// the sample (no code of the kernel's library runs between the sample's end and the copy),
// digests the bytes on the host, and tells the parent those digests ("R <id> ...") before it
// launches its device digests. The parent holds them against the device digests it heard
// ("D <id> ..."): outputs that changed in between are a FLAG (sample_witness.hpp).

#include <cstddef>
#include <cstdint>
#include <random>
#include <span>
#include <vector>

#include "kopt/run/kernel_arguments.hpp"

namespace kopt::measure {

// data/witness.toml [readback].
struct ReadbackRule {
  double share = 0.125;     // of the timed samples, each drawn alone
  int most_per_case = 8;    // a variant's read-backs on one case, besides its last sample
  // and no more once this many bytes were read back for it on the case (the last sample still is)
  double most_bytes_per_case = 1 << 30;
};

// Loaded once; throws environment Error on a bad file.
const ReadbackRule& readback_rule();

// Which samples are read back (a draw the kernel cannot predict: std::random_device), and the
// read-back itself.
class OutputReadback {
 public:
  explicit OutputReadback(const ReadbackRule& rule);
  ~OutputReadback();
  OutputReadback(const OutputReadback&) = delete;
  OutputReadback& operator=(const OutputReadback&) = delete;

  // Whether to read back a sample of a variant that has had `so_far` samples (`bytes_so_far`
  // bytes) read back on this case; `last`: its last sample, always read back.
  bool next(int so_far, double bytes_so_far, bool last);
  // The host digest of each set's outputs, combined as the device digests are (one per set, in
  // order), from bytes copied through kopt's own CUDA runtime. Throws CudaFailure.
  std::vector<std::uint64_t> digests(const std::vector<run::KernelArguments*>& sets);

 private:
  std::span<std::byte> host_bytes(std::size_t size);

  std::mt19937_64 draw_;
  std::bernoulli_distribution pick_;
  int most_;
  double most_bytes_;
  // One host buffer for every read-back of the worker, page-locked where CUDA grants it: a fresh
  // vector of the outputs' size each time cost its allocation, zeroing and page faults, then a
  // copy through the driver's pageable staging (172 ms for 256 MiB on an H100, up to nine times
  // a variant on a case).
  std::byte* pinned_ = nullptr;
  std::size_t pinned_size_ = 0;
  std::vector<std::byte> pageable_;  // where page-locking was refused
};

// The bytes OutputReadback::digests copies for these sets.
double output_bytes(const std::vector<run::KernelArguments*>& sets);

}  // namespace kopt::measure
