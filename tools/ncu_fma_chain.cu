// bench/discrimination/base.cu's solve, launched LAUNCHES times on n elements, for Nsight
// Compute to time (tools/bench_ncu.sh): `ncu --clock-control none` keeps the clocks as a
// normal run finds them, and its default --cache-control all flushes the caches before each
// kernel, as kopt's cold mode flushes the L2 before each sample.
//
//   nvcc -O3 -arch=native tools/ncu_fma_chain.cu -o fma_chain && ./fma_chain N LAUNCHES
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#include "../bench/discrimination/base.cu"

int main(int argc, char** argv) {
  if (argc != 3 || std::atoi(argv[1]) <= 0 || std::atoi(argv[2]) <= 0) {
    std::fprintf(stderr, "usage: %s N LAUNCHES (both positive)\n", argv[0]);
    return 2;
  }
  const int n = std::atoi(argv[1]), launches = std::atoi(argv[2]);
  std::vector<float> host(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) host[static_cast<std::size_t>(i)] = 2.0f * static_cast<float>(i % 1000) / 999 - 1;  // in [-1, 1], as the spec's uniform(-1,1)
  float *x = nullptr, *y = nullptr;
  if (cudaMalloc(&x, host.size() * sizeof(float)) != cudaSuccess || cudaMalloc(&y, host.size() * sizeof(float)) != cudaSuccess) {
    std::fprintf(stderr, "cudaMalloc failed\n");
    return 1;
  }
  cudaMemcpy(x, host.data(), host.size() * sizeof(float), cudaMemcpyHostToDevice);
  for (int i = 0; i < launches; ++i) solve(x, y, n);
  const cudaError_t status = cudaDeviceSynchronize();
  if (status != cudaSuccess) {
    std::fprintf(stderr, "solve failed: %s\n", cudaGetErrorString(status));
    return 1;
  }
  cudaFree(x);
  cudaFree(y);
  return 0;
}
