// Issue 17's agreement with Nsight Compute at 7 us, asked without kopt: does the GPU's own
// record of a kernel's start and end (CUPTI's activity records, what Nsight Systems shows)
// agree with ncu's gpu__time_duration.sum where CUDA events do not? One process times
// bench/discrimination/base.cu's solve on n elements three ways, each with the L2 flushed by a
// read of 2x its size before each sample:
//   cupti single: one call per sample, the device synchronised after it (as ncu serialises);
//   cupti batch:  7 calls per sample back to back, each call's own duration;
//   events batch: the same batches timed by two events, per call (kopt's way).
// It prints the median of each. Built on the GPU machine against the toolkit's CUPTI (CUDA 13
// keeps it in targets/x86_64-linux/{include,lib}; older toolkits in extras/CUPTI):
//   inc=/usr/local/cuda/targets/x86_64-linux/include lib=/usr/local/cuda/targets/x86_64-linux/lib
//   rec=$(grep -o 'CUpti_ActivityKernel[0-9]*' $inc/cupti_activity.h | sort -V | tail -1)
//   nvcc -O3 -arch=native -DKERNEL_RECORD=$rec -I$inc tools/cupti_fma_chain.cu -L$lib -lcupti \
//        -Xlinker -rpath=$lib -o cupti_fma_chain && ./cupti_fma_chain N
// Its single calls read ~35 us at 7 us, about a flush more than a kernel: most likely the
// record's start is stamped while the flush ahead of it still runs (not verified; docs/
// measurement.md, "Twenty-fifth session"). The batch's calls are the figure to read.
#include <cuda_runtime.h>
#include <cupti.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "../bench/discrimination/base.cu"

#define CHECK_CUDA(call)                                                                     \
  do {                                                                                       \
    cudaError_t e = (call);                                                                  \
    if (e != cudaSuccess) {                                                                  \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e)); \
      std::exit(1);                                                                          \
    }                                                                                        \
  } while (0)
#define CHECK_CUPTI(call)                                                        \
  do {                                                                           \
    CUptiResult r = (call);                                                      \
    if (r != CUPTI_SUCCESS) {                                                    \
      const char* s = nullptr;                                                   \
      cuptiGetResultString(r, &s);                                               \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #call, s);      \
      std::exit(1);                                                              \
    }                                                                            \
  } while (0)

namespace {

std::vector<double> g_durations_us;  // fma_chain's durations from the records delivered so far

void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *size = 8 << 20;
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, *size));
  *max_records = 0;
}

void CUPTIAPI buffer_completed(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid) {
  CUpti_Activity* record = nullptr;
  while (cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) {
    if (record->kind != CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) continue;
    const auto* kernel = reinterpret_cast<const KERNEL_RECORD*>(record);
    if (std::strstr(kernel->name, "fma_chain")) g_durations_us.push_back((kernel->end - kernel->start) / 1000.0);
  }
  std::free(buffer);
}

__global__ void flush_read(const float4* data, size_t count, float* sink) {
  float acc = 0;
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < count; i += gridDim.x * blockDim.x) acc += data[i].x;
  if (acc == 12345.f) *sink = acc;  // keeps the reads
}

double median(std::vector<double> v) {
  std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
  return v[v.size() / 2];
}

std::vector<double> take_durations() {
  CHECK_CUPTI(cuptiActivityFlushAll(1));
  std::vector<double> out;
  out.swap(g_durations_us);
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2 || std::atoi(argv[1]) <= 0) return std::fprintf(stderr, "usage: %s N\n", argv[0]), 2;
  const int n = std::atoi(argv[1]);
  CHECK_CUPTI(cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed));
  CHECK_CUPTI(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL));
  int l2 = 0;
  CHECK_CUDA(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
  const size_t flush_count = 2 * static_cast<size_t>(l2) / sizeof(float4);
  float4* flush = nullptr;
  float *sink = nullptr, *x = nullptr, *y = nullptr;
  CHECK_CUDA(cudaMalloc(&flush, flush_count * sizeof(float4)));
  CHECK_CUDA(cudaMemset(flush, 0, flush_count * sizeof(float4)));
  CHECK_CUDA(cudaMalloc(&sink, sizeof(float)));
  CHECK_CUDA(cudaMalloc(&x, n * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&y, n * sizeof(float)));
  CHECK_CUDA(cudaMemset(x, 0, n * sizeof(float)));
  auto flush_l2 = [&] { flush_read<<<132 * 8, 512>>>(flush, flush_count, sink); };

  for (int i = 0; i < 50; ++i) solve(x, y, n);  // warm-up, not counted
  CHECK_CUDA(cudaDeviceSynchronize());
  take_durations();

  for (int i = 0; i < 300; ++i) {
    flush_l2();
    solve(x, y, n);
    CHECK_CUDA(cudaDeviceSynchronize());
  }
  const double single = median(take_durations());

  cudaEvent_t begin, end;
  CHECK_CUDA(cudaEventCreate(&begin));
  CHECK_CUDA(cudaEventCreate(&end));
  std::vector<double> per_call_events;
  for (int i = 0; i < 300; ++i) {
    flush_l2();
    CHECK_CUDA(cudaEventRecord(begin));
    for (int c = 0; c < 7; ++c) solve(x, y, n);
    CHECK_CUDA(cudaEventRecord(end));
    CHECK_CUDA(cudaEventSynchronize(end));
    float ms = 0;
    CHECK_CUDA(cudaEventElapsedTime(&ms, begin, end));
    per_call_events.push_back(ms * 1000.0 / 7);
  }
  const double batch = median(take_durations());
  std::printf("n=%d cupti single %.3f us, cupti batch %.3f us, events batch %.3f us per call\n", n, single, batch,
              median(per_call_events));
  return 0;
}
