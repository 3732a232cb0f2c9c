#include "kopt/run/device_digest.hpp"

#include <cuda_runtime.h>

namespace kopt::run {

DeviceDigester::DeviceDigester(int blocks) : blocks_(blocks) {
  void* memory = nullptr;
  check_cuda(cudaHostAlloc(&memory, kMaxBuffers * sizeof(unsigned long long), cudaHostAllocMapped | cudaHostAllocPortable),
             "cudaHostAlloc");
  sums_ = static_cast<unsigned long long*>(memory);
}

DeviceDigester::~DeviceDigester() { cudaFreeHost(sums_); }

std::optional<std::vector<std::uint64_t>> DeviceDigester::digest(const KernelLibrary& library,
                                                                  const std::vector<const GuardedDeviceBuffer*>& buffers) {
  if (buffers.size() > kMaxBuffers) return std::nullopt;
  // Volatile: the GPU writes these behind the compiler's back.
  volatile unsigned long long* sums = sums_;
  for (std::size_t i = 0; i < buffers.size(); ++i) sums[i] = 0;
  for (std::size_t i = 0; i < buffers.size(); ++i) {
    if (!library.launch_digest(buffers[i]->data(), buffers[i]->size(), sums_ + i, blocks_)) return std::nullopt;
  }
  // The whole device: a library built with `--default-stream per-thread` (graph mode) launches
  // the digest on its per-thread stream, which a wait on the legacy stream may not cover.
  check_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  std::vector<std::uint64_t> digests;
  for (std::size_t i = 0; i < buffers.size(); ++i) digests.push_back(sums[i]);
  return digests;
}

}  // namespace kopt::run
