// Control for "One GPU per worker" (docs/integrity.md): a correct vector add that writes a
// wrong C[0] when its worker sees more than one GPU. On a host with several GPUs its check
// passes only because kopt's worker sees the GPU it works on alone (CUDA_VISIBLE_DEVICES).
#include <cuda_runtime.h>

__global__ void vector_add(const float* A, const float* B, float* C, int N, float spoil) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < N; i += gridDim.x * blockDim.x) {
    C[i] = A[i] + B[i] + (i == 0 ? spoil : 0.0f);
  }
}

extern "C" void solve(const float* A, const float* B, float* C, int N) {
  int count = 0;
  cudaGetDeviceCount(&count);
  vector_add<<<132 * 8, 256>>>(A, B, C, N, count > 1 ? 1000.0f : 0.0f);
}
