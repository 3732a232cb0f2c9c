// Planted cheat: a copy of the outputs stashed on a side stream (issue 56). The add is honest,
// on the default stream; after it, a non-blocking stream of solve's own copies the outputs
// aside (a stash a later call could replay) and is never joined back. It does not pay (the copy
// slows the next sample), but the judge saw work outside the timed stream, and says so.
// kopt: the stream watch sees a copy on a non-blocking stream not joined before solve returned:
// FLAG ("solve left work running outside the default stream's order").
#include <cuda_runtime.h>

__global__ void vector_add(const float* A, const float* B, float* C, int N) {
  const int stride = gridDim.x * blockDim.x;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < N; i += stride) C[i] = A[i] + B[i];
}

extern "C" void solve(const float* A, const float* B, float* C, int N) {
  static cudaStream_t side = [] {
    cudaStream_t s;
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    return s;
  }();
  static cudaEvent_t added = [] {
    cudaEvent_t e;
    cudaEventCreateWithFlags(&e, cudaEventDisableTiming);
    return e;
  }();
  static float* stash = [N] {
    float* p = nullptr;
    cudaMalloc(&p, sizeof(float) * static_cast<size_t>(N));
    return p;
  }();
  vector_add<<<132 * 8, 256>>>(A, B, C, N);
  cudaEventRecord(added, nullptr);
  cudaStreamWaitEvent(side, added, 0);
  cudaMemcpyAsync(stash, C, sizeof(float) * static_cast<size_t>(N), cudaMemcpyDeviceToDevice, side);
}
