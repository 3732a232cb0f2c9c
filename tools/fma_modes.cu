// Issue 17's open question, asked without kopt: does a 7 us kernel's time move between
// processes because of where its data lands, or where its code lands? One process times
// bench/discrimination's FMA chain (n = 131072, batches of 7 calls, as kopt does) in two ways:
//   data: DATA_TRIALS times, the buffers allocated anew behind a pad of random size;
//   code: CODE_COPIES copies of the same cubin loaded as separate modules (new code addresses),
//         timed on the same buffers;
//   contexts: CONTEXTS contexts of its own (cuCtxCreate), each with the module, buffers and a
//         stream, timed in two passes (forward, then backward), with the time each context
//         took to make: a shift that follows the context in both passes would let one
//         process pool several contexts instead of several processes.
// It prints the median per-call time of each trial. Run it in several processes: a shift
// that follows the process and not the trial points at neither (e.g. the context); one that
// follows the data or code trials points at placement.
//   nvcc -O3 -arch=sm_90 -cubin -o fma.cubin tools/fma_modes.cu -DKERNEL_ONLY
//   nvcc -O3 -arch=sm_90 -o fma_modes tools/fma_modes.cu -lcuda && ./fma_modes fma.cubin
#include <cuda.h>

#ifdef KERNEL_ONLY
extern "C" __global__ void fma_chain(const float* x, float* y, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    float v = x[i];
#pragma unroll 10
    for (int k = 0; k < 500; ++k) v = fmaf(v, 0.999f, 0.001f);
    y[i] = v;
  }
}
#else
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#define CHECK(call)                                                             \
  do {                                                                          \
    CUresult r = (call);                                                        \
    if (r != CUDA_SUCCESS) {                                                    \
      const char* s = nullptr;                                                  \
      cuGetErrorString(r, &s);                                                  \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #call, s);     \
      std::exit(1);                                                             \
    }                                                                           \
  } while (0)

static double median_batch_us(CUfunction f, CUdeviceptr x, CUdeviceptr y, int n, CUstream s) {
  CUevent a, b;
  CHECK(cuEventCreate(&a, CU_EVENT_DEFAULT));
  CHECK(cuEventCreate(&b, CU_EVENT_DEFAULT));
  void* args[] = {&x, &y, &n};
  std::vector<double> t;
  for (int rep = 0; rep < 300; ++rep) {
    CHECK(cuEventRecord(a, s));
    for (int c = 0; c < 7; ++c) CHECK(cuLaunchKernel(f, 132 * 16, 1, 1, 256, 1, 1, 0, s, args, nullptr));
    CHECK(cuEventRecord(b, s));
    CHECK(cuEventSynchronize(b));
    float ms = 0;
    CHECK(cuEventElapsedTime(&ms, a, b));
    if (rep >= 20) t.push_back(ms * 1000.0 / 7);
  }
  std::nth_element(t.begin(), t.begin() + t.size() / 2, t.end());
  CHECK(cuEventDestroy(a));
  CHECK(cuEventDestroy(b));
  return t[t.size() / 2];
}

struct ContextTrial {
  CUcontext context;
  CUfunction function;
  CUdeviceptr x, y;
  CUstream stream;
  double made_ms;
};

static void time_in_contexts(const std::vector<char>& cubin, CUdevice dev, int n) {
  const int count = 8;
  std::vector<ContextTrial> trials(count);
  for (ContextTrial& t : trials) {
    const auto start = std::chrono::steady_clock::now();
    CHECK(cuCtxCreate(&t.context, nullptr, 0, dev));  // made current on this thread
    CUmodule module;
    CHECK(cuModuleLoadData(&module, cubin.data()));
    CHECK(cuModuleGetFunction(&t.function, module, "fma_chain"));
    CHECK(cuMemAlloc(&t.x, n * 4));
    CHECK(cuMemAlloc(&t.y, n * 4));
    CHECK(cuMemsetD32(t.x, 0x3f000000, n));
    CHECK(cuStreamCreate(&t.stream, CU_STREAM_NON_BLOCKING));
    CHECK(cuCtxSynchronize());
    t.made_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  }
  std::vector<double> forward(count), backward(count);
  for (int i = 0; i < count; ++i) {
    CHECK(cuCtxSetCurrent(trials[i].context));
    forward[i] = median_batch_us(trials[i].function, trials[i].x, trials[i].y, n, trials[i].stream);
  }
  for (int i = count - 1; i >= 0; --i) {
    CHECK(cuCtxSetCurrent(trials[i].context));
    backward[i] = median_batch_us(trials[i].function, trials[i].x, trials[i].y, n, trials[i].stream);
  }
  std::printf("contexts (forward/backward, made in ms):");
  for (int i = 0; i < count; ++i) std::printf(" %.3f/%.3f(%.0f)", forward[i], backward[i], trials[i].made_ms);
  std::printf("\n");
}

int main(int argc, char** argv) {
  if (argc < 2) return std::fprintf(stderr, "usage: fma_modes CUBIN\n"), 2;
  FILE* in = std::fopen(argv[1], "rb");
  if (!in) return std::fprintf(stderr, "cannot open %s\n", argv[1]), 2;
  std::vector<char> cubin(1 << 20);
  cubin.resize(std::fread(cubin.data(), 1, cubin.size(), in));
  std::fclose(in);
  CHECK(cuInit(0));
  CUdevice dev;
  CHECK(cuDeviceGet(&dev, 0));
  CUcontext ctx;
  CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
  CHECK(cuCtxSetCurrent(ctx));
  CUstream s;
  CHECK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
  const int n = 131072;
  std::mt19937 random(std::random_device{}());
  std::vector<CUmodule> modules(8);
  std::vector<CUfunction> functions(8);
  for (int m = 0; m < 8; ++m) {
    CHECK(cuModuleLoadData(&modules[m], cubin.data()));
    CHECK(cuModuleGetFunction(&functions[m], modules[m], "fma_chain"));
  }
  std::printf("data:");
  for (int trial = 0; trial < 6; ++trial) {
    CUdeviceptr pad, x, y;
    CHECK(cuMemAlloc(&pad, (1 + random() % 512) * 65536));
    CHECK(cuMemAlloc(&x, n * 4));
    CHECK(cuMemAlloc(&y, n * 4));
    CHECK(cuMemsetD32(x, 0x3f000000, n));
    std::printf(" %.3f", median_batch_us(functions[0], x, y, n, s));
    CHECK(cuMemFree(pad));
    CHECK(cuMemFree(x));
    CHECK(cuMemFree(y));
  }
  CUdeviceptr x, y;
  CHECK(cuMemAlloc(&x, n * 4));
  CHECK(cuMemAlloc(&y, n * 4));
  CHECK(cuMemsetD32(x, 0x3f000000, n));
  std::printf("  code:");
  for (int m = 0; m < 8; ++m) std::printf(" %.3f", median_batch_us(functions[m], x, y, n, s));
  std::printf("\n");
  time_in_contexts(cubin, dev, n);
  return 0;
}
#endif
