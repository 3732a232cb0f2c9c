// Planted bottleneck: shared-memory bank conflicts. A 32x32 tile transpose through shared
// memory without padding: the column reads tile[threadIdx.x][ty] hit one bank 32 times (a
// 32-way conflict, 32 wavefronts per request). Global loads and stores are coalesced.
#include <cuda_runtime.h>

constexpr int kTile = 32;
constexpr int kRows = 8;  // block of 32 x 8 threads, each moving 4 elements

__global__ void transpose_conflicts(const float* src, float* dst, int n) {
  __shared__ float tile[kTile][kTile];  // no +1 padding: the planted conflict
  const int x = blockIdx.x * kTile + threadIdx.x;
  const int y = blockIdx.y * kTile + threadIdx.y;
  for (int j = 0; j < kTile; j += kRows) {
    if (x < n && y + j < n) tile[threadIdx.y + j][threadIdx.x] = src[(long long)(y + j) * n + x];
  }
  __syncthreads();
  const int ox = blockIdx.y * kTile + threadIdx.x;
  const int oy = blockIdx.x * kTile + threadIdx.y;
  for (int j = 0; j < kTile; j += kRows) {
    if (ox < n && oy + j < n) dst[(long long)(oy + j) * n + ox] = tile[threadIdx.x][threadIdx.y + j];
  }
}

extern "C" void solve(const float* src, float* dst, int n) {
  const dim3 grid((n + kTile - 1) / kTile, (n + kTile - 1) / kTile);
  transpose_conflicts<<<grid, dim3(kTile, kRows)>>>(src, dst, n);
}
