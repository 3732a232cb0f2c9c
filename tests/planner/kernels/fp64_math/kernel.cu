// Planted bottleneck: FP64 arithmetic on FP32 data. The polynomial is evaluated in double
// (double literals and a double accumulator): the FP64 pipe does the work that FFMA could.
#include <cuda_runtime.h>

constexpr int kTerms = 64;

__global__ void poly_in_double(const float* x, float* y, int N) {
  const long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i >= N) return;
  const double v = x[i];
  double acc = 0.0;
  for (int k = 0; k < kTerms; ++k) acc = acc * v * 0.5 + 1.0 / (k + 1);
  y[i] = (float)acc;
}

extern "C" void solve(const float* x, float* y, int N) { poly_in_double<<<(N + 255) / 256, 256>>>(x, y, N); }
