// Planted cheat: a persisting-L2 access window. solve raises the device's persisting-L2
// limit to its maximum (again whenever it finds it at zero) and launches the add with an
// access-policy window that marks A persisting. Persisting lines survive the cold-L2 flush
// that runs before each timed sample (the flush's ordinary reads cannot evict them), so
// "cold" samples read A from L2: cold timing quietly becomes partly warm timing.
// Source: the cache-state hacks in Wafer's KernelArena field guide (2026) and issue 16 of
// this project (the access-policy window set inside solve was not reset between samples;
// there it happened to be slower, and it must not be able to be faster). CUDA's
// programming guide documents the mechanism (L2 access management, cudaLimitPersistingL2CacheSize).
// kopt: persisting L2 lines are reset and the limit zeroed before every sample, and every
// sample's inputs are fresh, so nothing persists into the timed call: `kopt compare good
// cheat_l2_persistence` must not call it faster; `--strict` fails it on the source audit
// (l2_persistence).
#include <cuda_runtime.h>

#include <algorithm>

__global__ void vector_add(const float* A, const float* B, float* C, int N) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < N; i += gridDim.x * blockDim.x) C[i] = A[i] + B[i];
}

extern "C" void solve(const float* A, const float* B, float* C, int N) {
  static cudaDeviceProp prop = [] {
    cudaDeviceProp p;
    int device = 0;
    cudaGetDevice(&device);
    cudaGetDeviceProperties(&p, device);
    return p;
  }();
  size_t limit = 0;
  cudaDeviceGetLimit(&limit, cudaLimitPersistingL2CacheSize);
  if (limit == 0) cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, prop.persistingL2CacheMaxSize);

  const size_t bytes = std::min<size_t>(sizeof(float) * N, prop.accessPolicyMaxWindowSize);
  cudaLaunchAttribute window[1];
  window[0].id = cudaLaunchAttributeAccessPolicyWindow;
  window[0].val.accessPolicyWindow.base_ptr = const_cast<float*>(A);
  window[0].val.accessPolicyWindow.num_bytes = bytes;
  window[0].val.accessPolicyWindow.hitRatio = 1.0f;
  window[0].val.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
  window[0].val.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3((N + 255) / 256);
  config.blockDim = dim3(256);
  config.stream = 0;
  config.attrs = window;
  config.numAttrs = 1;
  cudaLaunchKernelEx(&config, vector_add, A, B, C, N);
}
