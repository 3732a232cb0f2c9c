// Shared by cheat_head_start and honest_own_stream: the add of honest_add, on a non-blocking
// stream of solve's own, joined back into the default stream before solve returns.
#pragma once
#include <cuda_runtime.h>

__global__ void vector_add(const float* A, const float* B, float* C, int N) {
  const int stride = gridDim.x * blockDim.x;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < N; i += stride) C[i] = A[i] + B[i];
}

inline void add_on_own_stream(const float* A, const float* B, float* C, int N) {
  static cudaStream_t side = [] {
    cudaStream_t s;
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    return s;
  }();
  static cudaEvent_t done = [] {
    cudaEvent_t e;
    cudaEventCreateWithFlags(&e, cudaEventDisableTiming);
    return e;
  }();
  vector_add<<<132 * 8, 256, 0, side>>>(A, B, C, N);
  cudaEventRecord(done, side);
  cudaStreamWaitEvent(nullptr, done, 0);  // the default stream waits: the stop event sees it all
}
