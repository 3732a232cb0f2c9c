// Control for the integrity tests: an honest, reasonably fast vector add (float4 loads, grid-
// stride loop) at the timing size of the cheats (2^25 floats). It uses no API that the source
// audit names; `kopt check --strict` passes and `kopt bench` raises no FLAG. The compare tests
// time each cheat against it.
#include <cuda_runtime.h>

__global__ void vector_add(const float* A, const float* B, float* C, int N) {
  const int stride = gridDim.x * blockDim.x;
  const int quads = N / 4;
  for (int q = blockIdx.x * blockDim.x + threadIdx.x; q < quads; q += stride) {
    const float4 a = reinterpret_cast<const float4*>(A)[q];
    const float4 b = reinterpret_cast<const float4*>(B)[q];
    reinterpret_cast<float4*>(C)[q] = make_float4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w);
  }
  for (int i = 4 * quads + blockIdx.x * blockDim.x + threadIdx.x; i < N; i += stride) C[i] = A[i] + B[i];
}

extern "C" void solve(const float* A, const float* B, float* C, int N) {
  vector_add<<<132 * 8, 256>>>(A, B, C, N);
}
