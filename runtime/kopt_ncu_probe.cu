// kopt doctor's Nsight Compute probe: one tiny kernel that ncu must be able to profile, with
// counters, for kopt profile to work on this machine.
#include <cuda_runtime.h>

__global__ void kopt_ncu_probe_kernel(float* x) { x[threadIdx.x] = 2.0f * static_cast<float>(threadIdx.x); }

extern "C" int kopt_ncu_probe(void) {
  float* x = nullptr;
  if (cudaMalloc(&x, 256 * sizeof(float)) != cudaSuccess) return 1;
  kopt_ncu_probe_kernel<<<1, 256>>>(x);
  const cudaError_t status = cudaDeviceSynchronize();
  cudaFree(x);
  return static_cast<int>(status);
}
