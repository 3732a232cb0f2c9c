// Planted for `kopt check --sanitize`: the last thread of each block also reads A far past
// its end (64 Ki elements, beyond any allocation's padding), and throws the value away
// unless it is a NaN it could never be. The outputs are right; memcheck must report an
// invalid __global__ read.
#include <cuda_runtime.h>

__global__ void vector_add_oob(const float* A, const float* B, float* C, int N) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= N) return;
  float extra = 0.0f;
  if (threadIdx.x == blockDim.x - 1 || i == N - 1) {
    const volatile float* far = A + N + 65536;
    float v = *far;
    if (v != v && v == 1.0f) extra = v;  // never true: keeps the read without changing C
  }
  C[i] = A[i] + B[i] + extra;
}

extern "C" void solve(const float* A, const float* B, float* C, int N) {
  vector_add_oob<<<(N + 255) / 256, 256>>>(A, B, C, N);
}
