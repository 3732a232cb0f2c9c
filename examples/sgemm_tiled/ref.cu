// Reference for sgemm_tiled (a copy of sgemm_naive's, so that this folder stands alone): the same product, accumulated in double, one thread per element.
// Row-major C[M x N] = A[M x K] * B[K x N]; the result is rounded to float once, at the end.
#include <cuda_runtime.h>

__global__ void sgemm_ref_kernel(const float* A, const float* B, float* C, int M, int N, int K) {
  const long long col = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  const long long row = blockIdx.y * (long long)blockDim.y + threadIdx.y;
  if (row >= M || col >= N) return;
  double acc = 0.0;
  for (long long k = 0; k < K; ++k) acc += (double)A[row * K + k] * (double)B[k * N + col];
  C[row * N + col] = (float)acc;
}

extern "C" void solve(const float* A, const float* B, float* C, int M, int N, int K) {
  dim3 block(32, 8);
  dim3 grid((N + block.x - 1) / block.x, (M + block.y - 1) / block.y);
  sgemm_ref_kernel<<<grid, block>>>(A, B, C, M, N, K);
}
