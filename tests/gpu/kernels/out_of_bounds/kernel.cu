// Planted: C is correct, but thread 0 also writes C[N..N+3], past the end of C. Small enough
// not to fault (it lands in the same allocation granule); it corrupts whatever sits there.
// Caught by: guard bytes (canaries) after each output buffer, checked after the run.
#include <cuda_runtime.h>

__global__ void vector_add_overrun(const float* A, const float* B, float* C, int N) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N) C[i] = A[i] + B[i];
  if (i == 0)
    for (int k = 0; k < 4; ++k) C[N + k] = 12345.0f;
}

extern "C" void solve(const float* A, const float* B, float* C, int N) {
  vector_add_overrun<<<(N + 255) / 256, 256>>>(A, B, C, N);
}
