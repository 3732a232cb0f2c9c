// Planted: launches with 2048 threads per block (the limit is 1024), so the launch fails and
// nothing runs; solve() does not check. CUDA 13 reports cudaErrorInvalidValue (older
// runtimes cudaErrorInvalidConfiguration). Caught by: cudaGetLastError() after solve, which
// sees the error only when the kernel .so and the harness share one CUDA runtime (build with
// -cudart shared); the outputs also stay poisoned.
#include <cuda_runtime.h>

__global__ void vector_add(const float* A, const float* B, float* C, int N) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N) C[i] = A[i] + B[i];
}

extern "C" void solve(const float* A, const float* B, float* C, int N) {
  vector_add<<<(N + 2047) / 2048, 2048>>>(A, B, C, N);
}
