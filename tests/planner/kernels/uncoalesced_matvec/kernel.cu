// Planted bottleneck: uncoalesced loads. y = A x with one thread per row: on each step the 32
// threads of a warp read 32 different rows, 32 sectors per request with 4 of their 32 bytes
// used. Each thread re-reads its own sector on the next 7 steps, so the L1 hit rate is high
// (~0.88) and says nothing; the sector efficiency says it (the kernel of issue 23).
#include <cuda_runtime.h>

__global__ void matvec_row_per_thread(const float* A, const float* x, float* y, int M, int N) {
  const int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= M) return;
  float sum = 0.0f;
  for (int k = 0; k < N; ++k) sum += A[(long long)row * N + k] * x[k];
  y[row] = sum;
}

extern "C" void solve(const float* A, const float* x, float* y, int M, int N) {
  matvec_row_per_thread<<<(M + 255) / 256, 256>>>(A, x, y, M, N);
}
