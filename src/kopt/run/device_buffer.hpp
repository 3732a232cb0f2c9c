#pragma once
// Device memory for one kernel argument, with guard zones on both sides: a kernel that
// writes a little past its buffer does not fault, so the guards are filled with a known
// byte before each call and checked after it.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>

namespace kopt::run {

// Raised in a worker when a CUDA runtime call fails: after a kernel fault every later call
// fails too, so the worker records the failure and stops.
struct CudaFailure {
  std::string call;     // "cudaDeviceSynchronize"
  std::string message;  // "an illegal memory access was encountered"
  bool out_of_memory = false;
};

class GuardedDeviceBuffer {
 public:
  // Guards are 4 KiB each: a multiple of 256 bytes keeps the data 256-byte aligned.
  static constexpr std::size_t kGuardBytes = 4096;
  static constexpr unsigned char kGuardByte = 0xC5;

  explicit GuardedDeviceBuffer(std::size_t data_bytes);  // throws CudaFailure
  ~GuardedDeviceBuffer();
  GuardedDeviceBuffer(GuardedDeviceBuffer&& other) noexcept;
  GuardedDeviceBuffer& operator=(GuardedDeviceBuffer&&) = delete;
  GuardedDeviceBuffer(const GuardedDeviceBuffer&) = delete;
  GuardedDeviceBuffer& operator=(const GuardedDeviceBuffer&) = delete;

  void* data() const { return static_cast<std::byte*>(base_) + kGuardBytes; }
  std::size_t size() const { return data_bytes_; }

  void upload(std::span<const std::byte> host);
  void download(std::span<std::byte> host) const;
  void fill(unsigned char byte);  // the data only
  void arm_guards();
  // Bytes changed in the guards: (before, after) counts; {0,0} when intact.
  std::pair<std::size_t, std::size_t> damaged_guard_bytes() const;

 private:
  void* base_ = nullptr;
  std::size_t data_bytes_ = 0;
};

// Throws CudaFailure when status is not cudaSuccess.
void check_cuda(int status, const char* call);

}  // namespace kopt::run
