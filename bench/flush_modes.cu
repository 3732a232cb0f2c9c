// How the way kopt makes L2 cold changes a measured time (docs/measurement.md, "Cold L2").
// Times vector add at 2^26 elements (two 256 MiB reads, one 256 MiB write) with CUDA events
// around the launch, after each of three ways to evict the kernel's data from L2:
//   memset  write a byte pattern over an L2-sized buffer (what nvbench does): leaves L2 full
//           of DIRTY lines, which the timed kernel must write back while it runs;
//   read    read a buffer of twice the L2 size: leaves L2 full of CLEAN lines;
//   none    warm (the previous call's data may still be in L2).
// Run it under ncu (--clock-control none, --cache-control all) to compare with
// gpu__time_duration.sum of the same kernel. Build: nvcc -O3 -arch=sm_90 flush_modes.cu
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <vector>

__global__ void vector_add(const float* a, const float* b, float* c, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

// Reads every 16-byte word; the store never happens (the sum is never this value) but the
// compiler cannot know that, so the loads stay.
__global__ void read_flush(const float4* buffer, size_t words, float* sink) {
  float sum = 0;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < words; i += (size_t)gridDim.x * blockDim.x) {
    const float4 v = buffer[i];
    sum += v.x + v.y + v.z + v.w;
  }
  if (sum == 1234.5f) *sink = sum;
}

int main() {
  const int n = 1 << 26;
  int l2 = 0, sms = 0;
  cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  float *a, *b, *c, *sink;
  char* flush;
  const size_t flush_bytes = 2 * (size_t)l2;
  cudaMalloc(&a, n * 4ull);
  cudaMalloc(&b, n * 4ull);
  cudaMalloc(&c, n * 4ull);
  cudaMalloc(&flush, flush_bytes);
  cudaMalloc(&sink, 4);
  cudaMemset(a, 0, n * 4ull);
  cudaMemset(b, 0, n * 4ull);
  cudaMemset(flush, 0, flush_bytes);
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  const char* modes[] = {"memset", "read", "none", "memset+read"};
  for (int round = 0; round < 2; ++round) {
    for (const char* mode : modes) {
      std::vector<float> ms;
      for (int s = 0; s < 200; ++s) {
        if (std::strstr(mode, "memset")) cudaMemsetAsync(flush, s & 0xff, l2);
        if (std::strstr(mode, "read")) read_flush<<<sms * 4, 512>>>((const float4*)flush, flush_bytes / 16, sink);
        cudaDeviceSynchronize();
        cudaEventRecord(start);
        vector_add<<<(n + 255) / 256, 256>>>(a, b, c, n);
        cudaEventRecord(stop);
        cudaEventSynchronize(stop);
        float t = 0;
        cudaEventElapsedTime(&t, start, stop);
        ms.push_back(t);
      }
      std::sort(ms.begin(), ms.end());
      std::printf("round %d %-12s median %.2f us  p10 %.2f  p90 %.2f\n", round, mode, ms[ms.size() / 2] * 1e3,
                  ms[ms.size() / 10] * 1e3, ms[ms.size() * 9 / 10] * 1e3);
    }
  }
  std::printf("L2 %d bytes, %d SMs, %s\n", l2, sms, cudaGetErrorString(cudaGetLastError()));
  return 0;
}
