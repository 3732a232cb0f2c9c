// 1_vector_add: a plain solution written against the challenge's starter signature.
#include <cuda_runtime.h>

__global__ void vector_add(const float* A, const float* B, float* C, int N) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N) C[i] = A[i] + B[i];
}

extern "C" void solve(const float* A, const float* B, float* C, int N) {
  const int threads = 256;
  vector_add<<<(N + threads - 1) / threads, threads>>>(A, B, C, N);
  cudaDeviceSynchronize();
}
