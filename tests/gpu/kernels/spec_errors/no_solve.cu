// Broken: no entry point. There is no solve (nor solution) here, only a differently named
// launcher, so `kopt check no_solve.cu` must fail with exit 2 saying that no solve was found.
#include <cuda_runtime.h>

__global__ void vector_add(const float* A, const float* B, float* C, int N) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N) C[i] = A[i] + B[i];
}

extern "C" void launch_vector_add(const float* A, const float* B, float* C, int N) {
  vector_add<<<(N + 255) / 256, 256>>>(A, B, C, N);
}
