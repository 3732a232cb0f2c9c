// Planted: never returns. C is written, then thread 0 spins on a flag that nothing ever
// sets (volatile, so the load is repeated forever). Caught by: the worker's time limit; the
// parent kills the worker and records a timeout.
#include <cuda_runtime.h>

__device__ volatile int kopt_never_set = 0;

__global__ void vector_add_hang(const float* A, const float* B, float* C, int N) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N) C[i] = A[i] + B[i];
  if (i == 0)
    while (kopt_never_set == 0) {
    }
}

extern "C" void solve(const float* A, const float* B, float* C, int N) {
  vector_add_hang<<<(N + 255) / 256, 256>>>(A, B, C, N);
}
