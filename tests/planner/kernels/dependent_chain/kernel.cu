// Planted bottleneck: no instruction-level parallelism. 16,896 independent chains (one per
// thread, 128-thread blocks, one block per SM) of 65,536 dependent FMAs each: one warp per
// scheduler, and every FFMA waits for the previous one (stall "wait"), so the schedulers
// issue about one cycle in four. Several independent accumulators per thread would fill them.
#include <cuda_runtime.h>

constexpr int kSteps = 65536;

__global__ void dependent_fma_chain(const float* x, float* y, int N) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= N) return;
  float v = x[i];
  for (int s = 0; s < kSteps; ++s) v = fmaf(v, 0.9999f, 0.0001f);
  y[i] = v;
}

extern "C" void solve(const float* x, float* y, int N) { dependent_fma_chain<<<(N + 127) / 128, 128>>>(x, y, N); }
