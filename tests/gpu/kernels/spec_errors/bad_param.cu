// Broken: solve's second parameter has type foo_t, which the kernel contract does not know
// (this file compiles; the signature parser must refuse it, naming the parameter).
#include <cuda_runtime.h>

typedef float foo_t;

__global__ void add(const float* A, foo_t* X, float* C, int N) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N) C[i] = A[i] + X[i];
}

extern "C" void solve(const float* A, foo_t* X, float* C, int N) {
  add<<<(N + 255) / 256, 256>>>(A, X, C, N);
}
