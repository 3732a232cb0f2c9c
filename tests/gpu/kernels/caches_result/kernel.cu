// Planted: a kernel that computes once per input buffer and afterwards replays the result it
// kept: correct on the first inputs, stale on any new inputs in the same buffers. A check
// with one seed cannot see it (both calls get the same inputs); kopt bench's re-check on new
// inputs after the timing loop must. The replay is a cheap copy, so it also "runs faster".
#include <cuda_runtime.h>

__global__ void vector_add(const float* A, const float* B, float* C, int N) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N) C[i] = A[i] + B[i];
}

extern "C" void solve(const float* A, const float* B, float* C, int N) {
  static const float* cached_for = nullptr;
  static float* cache = nullptr;
  static int cached_n = 0;
  if (cached_for == A && cached_n == N) {
    cudaMemcpyAsync(C, cache, sizeof(float) * N, cudaMemcpyDeviceToDevice, 0);
    return;
  }
  vector_add<<<(N + 255) / 256, 256>>>(A, B, C, N);
  if (cache != nullptr) cudaFree(cache);
  cudaMalloc(&cache, sizeof(float) * N);
  cudaMemcpyAsync(cache, C, sizeof(float) * N, cudaMemcpyDeviceToDevice, 0);
  cached_for = A;
  cached_n = N;
}
