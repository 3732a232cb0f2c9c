#include "kopt/run/device_digest.hpp"

#include <algorithm>

#include <cuda_runtime.h>

namespace kopt::run {

DigestSlots::DigestSlots(std::size_t count) : count_(count) {
  void* memory = nullptr;
  check_cuda(cudaMalloc(&memory, count * sizeof(unsigned long long)), "cudaMalloc");
  device_ = static_cast<unsigned long long*>(memory);
}

DigestSlots::~DigestSlots() { cudaFree(device_); }

void DigestSlots::clear(std::size_t count) {
  check_cuda(cudaMemset(device_, 0, std::min(count, count_) * sizeof(unsigned long long)), "cudaMemset");
}

std::vector<std::uint64_t> DigestSlots::read(std::size_t count) const {
  check_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  std::vector<std::uint64_t> values(std::min(count, count_));
  check_cuda(cudaMemcpy(values.data(), device_, values.size() * sizeof(unsigned long long), cudaMemcpyDeviceToHost),
             "cudaMemcpy");
  return values;
}

DeviceDigester::DeviceDigester(int blocks) : blocks_(blocks) {}

std::optional<std::vector<std::uint64_t>> DeviceDigester::digest(const KernelLibrary& library,
                                                                  const std::vector<const GuardedDeviceBuffer*>& buffers) {
  if (buffers.size() > kMaxBuffers) return std::nullopt;
  sums_.clear(buffers.size());
  for (std::size_t i = 0; i < buffers.size(); ++i) {
    if (!library.launch_digest(buffers[i]->data(), buffers[i]->size(), sums_.slot(i), blocks_)) return std::nullopt;
  }
  return sums_.read(buffers.size());
}

}  // namespace kopt::run
