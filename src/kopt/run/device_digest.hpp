#pragma once
// Digests of device buffers taken on the GPU (kopt's shim, runtime/kopt_shim.cu), summed into
// device memory and read back with one copy: 8 bytes per buffer cross the bus instead of the
// buffer. The
// check compares a call's outputs with its rerun's, and its inputs before and after a call,
// by these digests first, and looks at elements only where two digests differ
// (verify/check_job.cpp); the audit of timed calls takes nothing else.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "kopt/run/device_buffer.hpp"
#include "kopt/run/kernel_library.hpp"

namespace kopt::run {

// The device-memory slots the digest kernel adds into, read back with one copy. Not mapped
// host memory: every block of the digest kernel adds its sum into the slot with one atomic,
// and an atomic on host memory crosses the bus (on the H200, 528 blocks × 8 digests of a
// batch cost 4.5 ms a sample; in device memory they cost nothing to speak of).
class DigestSlots {
 public:
  explicit DigestSlots(std::size_t count);
  ~DigestSlots();
  DigestSlots(const DigestSlots&) = delete;
  DigestSlots& operator=(const DigestSlots&) = delete;

  // Zeroes the first `count` slots (synchronously, before any digest is queued).
  void clear(std::size_t count);
  unsigned long long* slot(std::size_t i) { return device_ + i; }
  // The first `count` slots once every digest queued has finished: waits for the whole
  // device, since a library built with `--default-stream per-thread` (graph mode) launches
  // the digest on its per-thread stream, which a wait on the legacy stream may not cover.
  std::vector<std::uint64_t> read(std::size_t count) const;
  std::size_t size() const { return count_; }

 private:
  unsigned long long* device_ = nullptr;
  std::size_t count_;
};

class DeviceDigester {
 public:
  // `blocks`: the digest kernel's grid (a few per SM keep the loads in flight).
  explicit DeviceDigester(int blocks);
  DeviceDigester(const DeviceDigester&) = delete;
  DeviceDigester& operator=(const DeviceDigester&) = delete;

  // The digest of each buffer's data (run::output_digest of the same bytes), in order, after
  // the work queued before on the default stream; nullopt when `library` has no digest
  // kernel or there are more buffers than kMaxBuffers. Synchronizes the device.
  std::optional<std::vector<std::uint64_t>> digest(const KernelLibrary& library,
                                                   const std::vector<const GuardedDeviceBuffer*>& buffers);

  static constexpr std::size_t kMaxBuffers = 64;

 private:
  DigestSlots sums_{kMaxBuffers};
  int blocks_;
};

}  // namespace kopt::run
