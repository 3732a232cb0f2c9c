// 70_segmented_prefix_sum, written for kopt's import check (not a fast solution): each element
// walks back to the start of its segment and sums the values before it in double, as the
// suite's reference does. It reads flags as the host wrote them (`set(zeros, 1, 0, ...)`), so a
// flag kopt's upload lost or moved would fail the check.
#include <cuda_runtime.h>

__global__ void segmented_exclusive_sum(const float* values, const int* flags, float* output, int N) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= N) return;
  double sum = 0.0;
  for (int j = i; j > 0 && flags[j] == 0; --j) sum += values[j - 1];
  output[i] = static_cast<float>(sum);
}

// values, flags, output are device pointers
extern "C" void solve(const float* values, const int* flags, float* output, int N) {
  const int threads = 256;
  segmented_exclusive_sum<<<(N + threads - 1) / threads, threads>>>(values, flags, output, N);
}
