// Planted: correct results, but the work runs on a non-blocking stream of solve's own, which
// does not synchronize with the default stream that the timing events are recorded on. The
// events see almost nothing; the host clock sees the whole kernel. kopt bench must flag that
// the work escapes the events. A spin of ~1 ms makes the gap unmistakable.
#include <cuda_runtime.h>

__global__ void slow_vector_add(const float* A, const float* B, float* C, int N) {
  const long long start = clock64();
  while (clock64() - start < 2000000) {  // ~1 ms at 2 GHz
  }
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < N; i += gridDim.x * blockDim.x) C[i] = A[i] + B[i];
}

extern "C" void solve(const float* A, const float* B, float* C, int N) {
  static cudaStream_t side = [] {
    cudaStream_t s;
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    return s;
  }();
  slow_vector_add<<<264, 256, 0, side>>>(A, B, C, N);
}
