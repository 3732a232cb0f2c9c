// Naive SGEMM, row-major: C[M x N] = A[M x K] * B[K x N].
// One thread per element of C, 16x16 blocks, fp32 accumulation. threadIdx.x walks the
// columns, so a warp reads consecutive B and writes consecutive C (coalesced) while all its
// threads read the same A element (a broadcast). No shared memory: the baseline that tiling
// has to beat.
#include <cuda_runtime.h>

#ifndef BLOCK
#define BLOCK 16   // kopt:param BLOCK in {8,16,32}
#endif

__global__ void sgemm_naive_kernel(const float* A, const float* B, float* C, int M, int N,
                                   int K) {
  const int col = blockIdx.x * BLOCK + threadIdx.x;
  const int row = blockIdx.y * BLOCK + threadIdx.y;
  if (row >= M || col >= N) return;
  const float* a = A + (size_t)row * K;
  const float* b = B + col;
  float acc = 0.0f;
  for (int k = 0; k < K; ++k) acc += a[k] * b[(size_t)k * N];
  C[(size_t)row * N + col] = acc;
}

extern "C" void solve(const float* A, const float* B, float* C, int M, int N, int K) {
  dim3 block(BLOCK, BLOCK);
  dim3 grid((N + BLOCK - 1) / BLOCK, (M + BLOCK - 1) / BLOCK);
  sgemm_naive_kernel<<<grid, block>>>(A, B, C, M, N, K);
}
