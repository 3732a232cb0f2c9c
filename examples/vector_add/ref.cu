// Reference for vector_add: the obviously-correct grid-stride loop.
#include <cuda_runtime.h>

__global__ void vector_add_ref(const float* A, const float* B, float* C, int N) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < N;
       i += (long long)gridDim.x * blockDim.x)
    C[i] = A[i] + B[i];
}

extern "C" void solve(const float* A, const float* B, float* C, int N) {
  vector_add_ref<<<1024, 256>>>(A, B, C, N);
}
