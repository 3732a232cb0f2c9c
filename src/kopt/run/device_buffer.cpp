#include "kopt/run/device_buffer.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <vector>

namespace kopt::run {

void check_cuda(int status, const char* call) {
  if (status == cudaSuccess) return;
  auto error = static_cast<cudaError_t>(status);
  throw CudaFailure{.call = call,
                    .message = cudaGetErrorString(error),
                    .out_of_memory = error == cudaErrorMemoryAllocation};
}

GuardedDeviceBuffer::GuardedDeviceBuffer(std::size_t data_bytes) : data_bytes_(data_bytes) {
  check_cuda(cudaMalloc(&base_, data_bytes + 2 * kGuardBytes), "cudaMalloc");
}

GuardedDeviceBuffer::GuardedDeviceBuffer(GuardedDeviceBuffer&& other) noexcept
    : base_(other.base_), data_bytes_(other.data_bytes_) {
  other.base_ = nullptr;
}

GuardedDeviceBuffer::~GuardedDeviceBuffer() {
  if (base_ != nullptr) cudaFree(base_);
}

void GuardedDeviceBuffer::upload(std::span<const std::byte> host) {
  check_cuda(cudaMemcpy(data(), host.data(), std::min(host.size(), data_bytes_), cudaMemcpyHostToDevice),
             "cudaMemcpy");
}

void GuardedDeviceBuffer::download(std::span<std::byte> host) const {
  check_cuda(cudaMemcpy(host.data(), data(), std::min(host.size(), data_bytes_), cudaMemcpyDeviceToHost),
             "cudaMemcpy");
}

void GuardedDeviceBuffer::fill(unsigned char byte) {
  check_cuda(cudaMemset(data(), byte, data_bytes_), "cudaMemset");
}

void GuardedDeviceBuffer::arm_guards() {
  auto* base = static_cast<std::byte*>(base_);
  check_cuda(cudaMemset(base, kGuardByte, kGuardBytes), "cudaMemset");
  check_cuda(cudaMemset(base + kGuardBytes + data_bytes_, kGuardByte, kGuardBytes), "cudaMemset");
}

std::pair<std::size_t, std::size_t> GuardedDeviceBuffer::damaged_guard_bytes() const {
  std::vector<unsigned char> before(kGuardBytes), after(kGuardBytes);
  auto* base = static_cast<std::byte*>(base_);
  check_cuda(cudaMemcpy(before.data(), base, kGuardBytes, cudaMemcpyDeviceToHost), "cudaMemcpy");
  check_cuda(cudaMemcpy(after.data(), base + kGuardBytes + data_bytes_, kGuardBytes, cudaMemcpyDeviceToHost),
             "cudaMemcpy");
  auto damaged = [](const std::vector<unsigned char>& zone) {
    return static_cast<std::size_t>(std::count_if(zone.begin(), zone.end(), [](unsigned char b) { return b != kGuardByte; }));
  };
  return {damaged(before), damaged(after)};
}

}  // namespace kopt::run
