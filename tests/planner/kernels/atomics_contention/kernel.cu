// Planted bottleneck: atomic contention. A 16-bin histogram with one global atomicAdd per
// element: 2^26 atomics on 16 addresses, serialized in the L2.
#include <cuda_runtime.h>

__global__ void histogram_global_atomics(const int* values, int* bins, int N) {
  const long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i < N) atomicAdd(&bins[values[i]], 1);
}

extern "C" void solve(const int* values, int* bins, int N) {
  histogram_global_atomics<<<(N + 255) / 256, 256>>>(values, bins, N);
}
