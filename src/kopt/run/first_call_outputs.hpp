#pragma once
// The outputs of a check's first call, kept while the second call overwrites the buffers.
// Most checks need these bytes only to write them for the reference's comparison; a race
// check or an element-by-element comparison in the worker is the exception. So they stay on
// the GPU (a device-to-device copy: ~0.1 ms for 256 MiB on the H200, where a download cost
// 0.17-0.21 s of a vector add's check), are digested there, stream to their .npy files
// through two page-locked pieces (the next piece's download runs while this one is written),
// and come to host memory only when asked for. Where the copies would take more than a
// quarter of the GPU's free memory they are host copies, downloaded after the call, as
// before: the kernel's own scratch allocations must still find room.

#include <array>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "kopt/core/files.hpp"
#include "kopt/run/device_buffer.hpp"
#include "kopt/run/kernel_arguments.hpp"

namespace kopt::run {

// Two page-locked host pieces and a stream of their own, through which device bytes reach a
// sink piece by piece.
class StagingPieces {
 public:
  static constexpr std::size_t kPieceBytes = std::size_t{16} << 20;

  StagingPieces();  // throws CudaFailure
  ~StagingPieces();
  StagingPieces(const StagingPieces&) = delete;
  StagingPieces& operator=(const StagingPieces&) = delete;

  // Hands `bytes` bytes at device address `data` to `sink` in order, in pieces of at most
  // kPieceBytes; the piece after the one being sunk is downloading meanwhile.
  void stream(const void* data, std::size_t bytes, const ByteSink& sink);

 private:
  void start_piece(const std::byte* data, std::size_t bytes, std::size_t piece);
  std::array<std::byte*, 2> host_{};
  std::array<void*, 2> downloaded_{};  // cudaEvent_t, kept out of this header
  void* stream_ = nullptr;             // cudaStream_t
};

// Share of the device's free memory the copies may take; above it they are host copies.
inline constexpr double kDeviceCopyShare = 0.25;

class FirstCallOutputs {
 public:
  // Keeps `arguments`' outputs: on the device when they fit (kDeviceCopyShare), else in
  // page-locked host memory, allocated at the first capture and kept from seed to seed of
  // the case (a job that never captures, the audit's, allocates nothing).
  explicit FirstCallOutputs(const KernelArguments& arguments);
  ~FirstCallOutputs();
  FirstCallOutputs(const FirstCallOutputs&) = delete;
  FirstCallOutputs& operator=(const FirstCallOutputs&) = delete;

  // Takes the outputs as they are now, after the first call. Throws CudaFailure.
  void capture();
  bool on_device() const { return !device_.empty(); }
  // What to digest for the first call's outputs: the device copies, or (host copies) the
  // output buffers themselves, unchanged since the download.
  std::vector<const GuardedDeviceBuffer*> digest_buffers() const;
  // Each output's bytes, indexed like the arguments (empty entries for non-outputs); a
  // device copy is downloaded the first time this is asked after a capture.
  const std::vector<Bytes>& host();
  // Output `index`'s bytes to `sink`: from the host copy where there is one, else streamed.
  void stream(std::size_t index, const ByteSink& sink);

 private:
  void allocate();
  void allocate_host();
  const KernelArguments& arguments_;
  bool allocated_ = false;
  std::vector<std::optional<GuardedDeviceBuffer>> device_;  // indexed like the arguments; empty: host copies
  std::vector<Bytes> host_;
  std::vector<void*> pinned_;  // what cudaHostRegister accepted, to unregister
  bool host_current_ = false;
  std::unique_ptr<StagingPieces> staging_;
};

}  // namespace kopt::run
