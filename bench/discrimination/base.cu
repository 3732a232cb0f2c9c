// A compute-bound kernel whose run time is set by ITERS: each thread runs ITERS dependent
// FMAs per element. base.cu (ITERS 500) and slower_2pct.cu (ITERS 510) differ by a real 2 %
// of arithmetic, which `kopt compare` must be able to tell apart (docs/measurement.md).
#ifndef ITERS
#define ITERS 500
#endif

__global__ void fma_chain(const float* x, float* y, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    float v = x[i];
#pragma unroll 10
    for (int k = 0; k < ITERS; ++k) v = fmaf(v, 0.999f, 0.001f);
    y[i] = v;
  }
}

extern "C" void solve(const float* x, float* y, int n) { fma_chain<<<132 * 16, 256>>>(x, y, n); }
