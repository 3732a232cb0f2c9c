// Planted bottleneck: scalar accesses. y = a*x + y over 2^26 floats with one coalesced 4-byte
// load per array per thread: 4 sectors per request, full sector use, DRAM-latency-bound with
// few bytes in flight per thread. float4 (16 sectors per request) moves the same bytes in a
// quarter of the instructions.
#include <cuda_runtime.h>

__global__ void saxpy_scalar(const float* x, float* y, int N) {
  const long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i < N) y[i] = 3.0f * x[i] + y[i];
}

extern "C" void solve(const float* x, float* y, int N) { saxpy_scalar<<<(N + 255) / 256, 256>>>(x, y, N); }
