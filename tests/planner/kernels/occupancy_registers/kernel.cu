// Planted bottleneck: occupancy limited by registers. Each thread keeps 96 loaded values live
// across 8 mixing rounds (fully unrolled, so they stay in registers): ~190 registers per
// thread (nvcc 13: 188, no spill), one 256-thread block per SM, 8 of 64 warps resident (12.5 % occupancy) while the
// kernel waits on DRAM.
#include <cuda_runtime.h>

constexpr int kLive = 96;

__global__ void mix_many_registers(const float* x, float* y, int N) {
  const long long threads = (long long)gridDim.x * blockDim.x;
  const long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  float v[kLive];
#pragma unroll
  for (int j = 0; j < kLive; ++j) {
    const long long i = t + j * threads;
    v[j] = i < N ? x[i] : 0.0f;
  }
#pragma unroll
  for (int round = 0; round < 8; ++round) {
#pragma unroll
    for (int j = 0; j < kLive; ++j) v[j] = fmaf(v[j], 0.5f, v[(j + 37) % kLive] * 0.25f);
  }
#pragma unroll
  for (int j = 0; j < kLive; ++j) {
    const long long i = t + j * threads;
    if (i < N) y[i] = v[j];
  }
}

extern "C" void solve(const float* x, float* y, int N) {
  const long long per_block = 256LL * kLive;
  mix_many_registers<<<(unsigned)((N + per_block - 1) / per_block), 256>>>(x, y, N);
}
