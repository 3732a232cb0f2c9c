// Planted: writes through a wild pointer, 4 TiB past C: an illegal address, which kills the
// CUDA context. Caught by: the worker process reports a crash (cudaErrorIllegalAddress),
// and the parent kopt survives it.
#include <cuda_runtime.h>

__global__ void vector_add_wild(const float* A, const float* B, float* C, int N) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N) C[(long long)i + (1LL << 40)] = A[i] + B[i];
}

extern "C" void solve(const float* A, const float* B, float* C, int N) {
  vector_add_wild<<<(N + 255) / 256, 256>>>(A, B, C, N);
}
