// Planted: C is correct, but the kernel also overwrites its input A (through a cast-away
// const). Caught by: the input checksum before/after the run.
#include <cuda_runtime.h>

__global__ void vector_add_clobber(const float* A, const float* B, float* C, int N) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N) {
    const float a = A[i];
    C[i] = a + B[i];
    const_cast<float*>(A)[i] = -a;
  }
}

extern "C" void solve(const float* A, const float* B, float* C, int N) {
  vector_add_clobber<<<(N + 255) / 256, 256>>>(A, B, C, N);
}
