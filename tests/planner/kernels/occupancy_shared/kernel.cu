// Planted bottleneck: occupancy limited by shared memory. Each 256-thread block reverses its
// 1024-element chunk through a 100 KiB dynamic shared buffer of which it uses 4 KiB: two
// blocks fit per SM (16 of 64 warps, 25 % occupancy) for a DRAM-latency-bound copy.
#include <cuda_runtime.h>

constexpr int kThreads = 256;
constexpr int kChunk = 1024;
constexpr int kSharedBytes = 100 * 1024;

__global__ void reverse_chunks(const float* x, float* y, int N) {
  extern __shared__ float stage[];
  const long long base = (long long)blockIdx.x * kChunk;
  for (int k = threadIdx.x; k < kChunk; k += kThreads) stage[k] = base + k < N ? x[base + k] : 0.0f;
  __syncthreads();
  for (int k = threadIdx.x; k < kChunk; k += kThreads) {
    if (base + k < N) y[base + k] = stage[kChunk - 1 - k];
  }
}

extern "C" void solve(const float* x, float* y, int N) {
  static bool configured = false;
  if (!configured) {
    cudaFuncSetAttribute(reverse_chunks, cudaFuncAttributeMaxDynamicSharedMemorySize, kSharedBytes);
    configured = true;
  }
  reverse_chunks<<<(N + kChunk - 1) / kChunk, kThreads, kSharedBytes>>>(x, y, N);
}
