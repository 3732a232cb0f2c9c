// Planted cheat: a head start before the window opens (issue 56, family 2). After 8 honest calls
// the add runs on a non-blocking stream of solve's own, joined back before solve returns. While
// kopt's blocker holds the default stream, the add is queued on its own stream; as the blocker
// lets go, SMs come free block by block and the add starts on them before the default stream's
// start event fires behind the blocker: the first microseconds of its work are out of the
// window (1.7 % "faster" than the honest add in the held-back suite, H100).
// kopt: the stream watch sees work outside the default stream's order, throws the held sample
// away and times the variant unheld from then on, where the GPU is idle at the start event and
// nothing solve sends can start before it: `kopt compare` finds it no faster than honest_add.
#include "../own_stream_add.cuh"

__global__ void vector_add_here(const float* A, const float* B, float* C, int N) {
  const int stride = gridDim.x * blockDim.x;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < N; i += stride) C[i] = A[i] + B[i];
}

extern "C" void solve(const float* A, const float* B, float* C, int N) {
  static int calls = 0;
  if (++calls <= 8) {
    vector_add_here<<<132 * 8, 256>>>(A, B, C, N);
    return;
  }
  add_on_own_stream(A, B, C, N);
}
