// Planted: every 1000th element of C (i = 0, 1000, 2000, ...) is never written, so it keeps
// whatever was there before. Caught by: output poisoning (NaN survives in those elements).
#include <cuda_runtime.h>

__global__ void vector_add_skip(const float* A, const float* B, float* C, int N) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N && i % 1000 != 0) C[i] = A[i] + B[i];
}

extern "C" void solve(const float* A, const float* B, float* C, int N) {
  vector_add_skip<<<(N + 255) / 256, 256>>>(A, B, C, N);
}
