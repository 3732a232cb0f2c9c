// Planted bottleneck: warp divergence. Even and odd lanes run two different long loops, so
// every warp executes both with half its threads masked off (thread efficiency ~0.5).
#include <cuda_runtime.h>

constexpr int kSteps = 512;

__global__ void divergent_paths(const float* x, float* y, int N) {
  const long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i >= N) return;
  float v = x[i];
  if (threadIdx.x % 2 == 0) {
    for (int s = 0; s < kSteps; ++s) v = fmaf(v, 0.999f, 0.001f);
  } else {
    for (int s = 0; s < kSteps; ++s) v = fmaf(v, 0.998f, -0.002f);
  }
  y[i] = v;
}

extern "C" void solve(const float* x, float* y, int N) { divergent_paths<<<(N + 255) / 256, 256>>>(x, y, N); }
