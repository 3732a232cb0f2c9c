// Planted cheat: cheat_waited_side_stream, small enough to hide under the hold's allowance.
// After 8 honest calls, solve runs the whole add (2^20 floats: a few µs) on a non-blocking
// stream of its own and waits for it before returning. With a blocker that only held the
// default stream, the add ran during the hold and solve returned well within the 100 µs a
// held call may keep the host: no witness saw the work, and the events bracketed nothing.
// kopt: its blocker fills every SM while it holds (runtime/kopt_shim.cu), so the add cannot
// run until the blocker lets go by itself (50 ms later): FLAG "waited for the GPU while kopt
// held it" (docs/integrity.md, "The hold").
#include <cuda_runtime.h>

__global__ void vector_add(const float* A, const float* B, float* C, int N) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < N; i += gridDim.x * blockDim.x) C[i] = A[i] + B[i];
}

extern "C" void solve(const float* A, const float* B, float* C, int N) {
  static cudaStream_t side = [] {
    cudaStream_t s;
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    return s;
  }();
  static int calls = 0;
  if (++calls <= 8) {
    vector_add<<<132 * 8, 256>>>(A, B, C, N);
    return;
  }
  vector_add<<<132 * 8, 256, 0, side>>>(A, B, C, N);
  cudaStreamSynchronize(side);
}
