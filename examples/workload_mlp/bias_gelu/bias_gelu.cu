// y = gelu(x + bias), bias broadcast along the rows of x (rows x cols, row-major): the
// activation of an MLP's first layer, fused. In PyTorch it is two kernels (an add, then the
// GELU), each reading and writing the whole activation; fused, it is one read and one write.
//
// As written (every switch at its default, off) this is the naive kernel: one thread per
// element, one float per load. kopt optimize searches the switches and sizes below.
// GELU is the exact one (0.5 x (1 + erf(x / sqrt 2))), as torch.nn.functional.gelu's default.
#include <cuda_runtime.h>

#ifndef THREADS
#define THREADS 128  // kopt:param THREADS in {128,256,512}
#endif
#ifndef KOPT_USE_VECTORIZED_ACCESS
#define KOPT_USE_VECTORIZED_ACCESS 0  // kopt:method memory.vectorized_access
#endif

static_assert(THREADS % 32 == 0 && THREADS <= 1024, "THREADS: whole warps, at most 1024");

namespace bias_gelu {

__device__ __forceinline__ float gelu(float v) { return 0.5f * v * (1.0f + erff(v * 0.70710678118654752f)); }

__global__ void __launch_bounds__(THREADS) scalar(const float* __restrict__ x, const float* __restrict__ bias,
                                                  float* __restrict__ y, long long n, int cols) {
  const long long i = blockIdx.x * (long long)THREADS + threadIdx.x;
  if (i < n) y[i] = gelu(x[i] + bias[i % cols]);
}

// Four columns per thread; needs cols % 4 == 0 and 16-byte aligned rows (checked by solve).
__global__ void __launch_bounds__(THREADS) vectorized(const float4* __restrict__ x, const float4* __restrict__ bias,
                                                      float4* __restrict__ y, long long n4, int cols4) {
  const long long i = blockIdx.x * (long long)THREADS + threadIdx.x;
  if (i >= n4) return;
  const float4 v = x[i], b = bias[i % cols4];
  y[i] = make_float4(gelu(v.x + b.x), gelu(v.y + b.y), gelu(v.z + b.z), gelu(v.w + b.w));
}

bool aligned(const void* p) { return reinterpret_cast<unsigned long long>(p) % 16 == 0; }

}  // namespace bias_gelu

extern "C" void solve(const float* x, const float* bias, float* y, int rows, int cols) {
  const long long n = (long long)rows * cols;
  if (n == 0) return;
  if (KOPT_USE_VECTORIZED_ACCESS && cols % 4 == 0 && bias_gelu::aligned(x) && bias_gelu::aligned(bias) &&
      bias_gelu::aligned(y)) {
    const long long n4 = n / 4;
    bias_gelu::vectorized<<<(unsigned)((n4 + THREADS - 1) / THREADS), THREADS>>>(
        reinterpret_cast<const float4*>(x), reinterpret_cast<const float4*>(bias), reinterpret_cast<float4*>(y), n4,
        cols / 4);
    return;
  }
  bias_gelu::scalar<<<(unsigned)((n + THREADS - 1) / THREADS), THREADS>>>(x, bias, y, n, cols);
}
