// Planted: 70_segmented_prefix_sum that assumes the performance test's segments (a flag every 256
// elements) instead of reading the flags. It passes the performance size and fails the suite's
// random tests, whose segment starts are a random walk (`set(zeros, 1, 0, walk(...))`).
#include <cuda_runtime.h>

__global__ void segmented_exclusive_sum(const float* values, float* output, int N) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= N) return;
  double sum = 0.0;
  for (int j = i; j % 256 != 0; --j) sum += values[j - 1];
  output[i] = static_cast<float>(sum);
}

extern "C" void solve(const float* values, const int* flags, float* output, int N) {
  (void)flags;
  const int threads = 256;
  segmented_exclusive_sum<<<(N + threads - 1) / threads, threads>>>(values, output, N);
}
