// Planted bottleneck: the tail wave. 290 blocks of 1024 threads, two resident per SM: 264 run
// in the first wave and 26 in a second that leaves 90 % of the SMs idle (1.1 waves). Each
// thread runs four independent FMA chains, so the SMs are busy while they have blocks.
#include <cuda_runtime.h>

constexpr int kBlocks = 290;
constexpr int kThreads = 1024;
constexpr int kSteps = 4096;

__global__ void __launch_bounds__(kThreads, 2) long_blocks(const float* x, float* y) {
  const int i = blockIdx.x * kThreads + threadIdx.x;
  float a = x[i], b = a + 1.0f, c = a - 1.0f, d = 0.5f * a;
  for (int s = 0; s < kSteps; ++s) {
    a = fmaf(a, 0.999f, 0.001f);
    b = fmaf(b, 0.998f, 0.002f);
    c = fmaf(c, 0.997f, 0.003f);
    d = fmaf(d, 0.996f, 0.004f);
  }
  y[i] = a + b + c + d;
}

extern "C" void solve(const float* x, float* y, int N) {
  if (N == kBlocks * kThreads) long_blocks<<<kBlocks, kThreads>>>(x, y);
}
