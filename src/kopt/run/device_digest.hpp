#pragma once
// Digests of device buffers taken on the GPU (kopt's shim, runtime/kopt_shim.cu), read back
// through mapped host memory: 8 bytes per buffer cross the bus instead of the buffer. The
// check compares a call's outputs with its rerun's, and its inputs before and after a call,
// by these digests first, and looks at elements only where two digests differ
// (verify/check_job.cpp); the audit of timed calls takes nothing else.

#include <cstdint>
#include <optional>
#include <vector>

#include "kopt/run/device_buffer.hpp"
#include "kopt/run/kernel_library.hpp"

namespace kopt::run {

class DeviceDigester {
 public:
  // `blocks`: the digest kernel's grid (a few per SM keep the loads in flight).
  explicit DeviceDigester(int blocks);
  ~DeviceDigester();
  DeviceDigester(const DeviceDigester&) = delete;
  DeviceDigester& operator=(const DeviceDigester&) = delete;

  // The digest of each buffer's data (run::output_digest of the same bytes), in order, after
  // the work queued before on the default stream; nullopt when `library` has no digest
  // kernel or there are more buffers than kMaxBuffers. Synchronizes the device.
  std::optional<std::vector<std::uint64_t>> digest(const KernelLibrary& library,
                                                   const std::vector<const GuardedDeviceBuffer*>& buffers);

  static constexpr std::size_t kMaxBuffers = 64;

 private:
  unsigned long long* sums_ = nullptr;  // mapped host memory, kMaxBuffers values
  int blocks_;
};

}  // namespace kopt::run
