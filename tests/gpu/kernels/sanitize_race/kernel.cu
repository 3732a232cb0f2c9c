// Planted for `kopt check --sanitize`: each thread stages A[i] in shared memory and reads it
// back through its mirror thread (blockDim - 1 - tid), which wrote it — with no
// __syncthreads between the write and the read. The mirror is in another warp, so this is a
// read-after-write hazard racecheck must report; in practice the write has landed and C is
// right, which is why kopt's ordinary check does not see it.
#include <cuda_runtime.h>

__global__ void vector_add_race(const float* A, const float* B, float* C, int N) {
  __shared__ float staged[256];
  const int base = blockIdx.x * blockDim.x;
  const int mirror = blockDim.x - 1 - threadIdx.x;
  const int i = base + threadIdx.x;
  staged[mirror] = base + mirror < N ? A[base + mirror] : 0.0f;  // the mirror's element
  // missing: __syncthreads();
  if (i < N) C[i] = staged[threadIdx.x] + B[i];  // written by thread `mirror`
}

extern "C" void solve(const float* A, const float* B, float* C, int N) {
  vector_add_race<<<(N + 255) / 256, 256>>>(A, B, C, N);
}
