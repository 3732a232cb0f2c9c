// Row-wise softmax of a row-major [rows x cols] fp32 matrix, numerically stable:
//   output[r][c] = exp(input[r][c] - max_r) / sum_c' exp(input[r][c'] - max_r)
// One block per row. Its threads stride over the row three times: the maximum, the sum of
// exponentials, the normalized output; per-thread partials are combined across the block with
// warp shuffles (or a shared-memory tree when that method is off). With shared-memory tiling on,
// the first pass also copies the row into shared memory and the second replaces it there by its
// exponentials, so the row is read from global memory once (when it fits: cols*4 bytes of
// shared memory per block); without it, every pass reads the row again (from L2 at best).
//
// Every parameter and method switch is a macro; kopt rebuilds with -DNAME=VALUE. The kernel is
// correct for any rows, cols >= 0 and any combination: float4 accesses are used only when the
// host checks that cols is a multiple of 4 and both pointers are 16-byte aligned.
//
// The defaults are deliberately weak (one warp per row, one vector in flight per thread):
// correct and slow, so that the tuner has room.
#include <cuda_runtime.h>

// ---- tunable parameters -------------------------------------------------------------------

#ifndef THREADS
#define THREADS 32  // kopt:param THREADS in {32,64,128,256,512,1024}
#endif
#ifndef ITEMS
#define ITEMS 1  // kopt:param ITEMS in {1,2,4}
#endif

// ---- method switches (each can be turned off with -DKOPT_USE_...=0) ------------------------

#ifndef KOPT_USE_SMEM_TILING
#define KOPT_USE_SMEM_TILING 1  // kopt:method memory.tiling_smem
#endif
#ifndef KOPT_USE_VECTORIZED_ACCESS
#define KOPT_USE_VECTORIZED_ACCESS 1  // kopt:method memory.vectorized_access
#endif
#ifndef KOPT_USE_WARP_SHUFFLE_REDUCTION
#define KOPT_USE_WARP_SHUFFLE_REDUCTION 1  // kopt:method latency.warp_shuffle_reduction
#endif

static_assert(THREADS % 32 == 0 && THREADS <= 1024, "THREADS: whole warps, at most 1024");

namespace softmax {

struct MaxOp {
  __device__ float operator()(float a, float b) const { return fmaxf(a, b); }
};
struct SumOp {
  __device__ float operator()(float a, float b) const { return a + b; }
};

// Combines one value per thread with `op`; every thread gets the result.
template <typename Op>
__device__ float block_reduce(float value, Op op) {
#if KOPT_USE_WARP_SHUFFLE_REDUCTION
  __shared__ float warp_results[THREADS / 32];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  for (int offset = 16; offset > 0; offset >>= 1) value = op(value, __shfl_xor_sync(0xffffffffu, value, offset));
  if (lane == 0) warp_results[warp] = value;
  __syncthreads();
  value = warp_results[0];
  for (int w = 1; w < THREADS / 32; ++w) value = op(value, warp_results[w]);
  __syncthreads();  // warp_results is reused by the next reduction
  return value;
#else
  __shared__ float scratch[THREADS];
  scratch[threadIdx.x] = value;
  __syncthreads();
  for (int stride = THREADS / 2; stride > 0; stride >>= 1) {
    if (threadIdx.x < stride) scratch[threadIdx.x] = op(scratch[threadIdx.x], scratch[threadIdx.x + stride]);
    __syncthreads();
  }
  const float result = scratch[0];
  __syncthreads();
  return result;
#endif
}

__device__ __forceinline__ float lane_max(float v) { return v; }
__device__ __forceinline__ float lane_max(float4 v) { return fmaxf(fmaxf(v.x, v.y), fmaxf(v.z, v.w)); }
__device__ __forceinline__ float lane_sum(float v) { return v; }
__device__ __forceinline__ float lane_sum(float4 v) { return (v.x + v.y) + (v.z + v.w); }
__device__ __forceinline__ float exp_shifted(float v, float shift) { return expf(v - shift); }
__device__ __forceinline__ float4 exp_shifted(float4 v, float shift) {
  return {expf(v.x - shift), expf(v.y - shift), expf(v.z - shift), expf(v.w - shift)};
}
__device__ __forceinline__ float scaled(float v, float divisor) { return v / divisor; }
__device__ __forceinline__ float4 scaled(float4 v, float divisor) {
  return {v.x / divisor, v.y / divisor, v.z / divisor, v.w / divisor};
}

// Vec is float4 or float; a row is cols / width Vecs. With ROW_IN_SMEM the row lives in
// dynamic shared memory (cols floats) between the passes.
template <typename Vec, bool ROW_IN_SMEM>
__global__ void __launch_bounds__(THREADS) softmax_kernel(const float* __restrict__ input, float* __restrict__ output,
                                                          int cols) {
  extern __shared__ float4 row_cache_storage[];
  Vec* row_cache = reinterpret_cast<Vec*>(row_cache_storage);
  constexpr int width = sizeof(Vec) / sizeof(float);
  const int vectors = cols / width;
  const Vec* in = reinterpret_cast<const Vec*>(input + (size_t)blockIdx.x * cols);
  Vec* out = reinterpret_cast<Vec*>(output + (size_t)blockIdx.x * cols);

  float local_max = -INFINITY;
  for (int base = threadIdx.x; base < vectors; base += THREADS * ITEMS) {
    Vec v[ITEMS];
#pragma unroll
    for (int k = 0; k < ITEMS; ++k) {  // all loads first: ITEMS independent requests in flight
      const int c = base + k * THREADS;
      if (c < vectors) v[k] = in[c];
    }
#pragma unroll
    for (int k = 0; k < ITEMS; ++k) {
      const int c = base + k * THREADS;
      if (c >= vectors) break;
      if (ROW_IN_SMEM) row_cache[c] = v[k];
      local_max = fmaxf(local_max, lane_max(v[k]));
    }
  }
  const float row_max = block_reduce(local_max, MaxOp());

  float local_sum = 0.0f;
  for (int c = threadIdx.x; c < vectors; c += THREADS) {
    const Vec e = exp_shifted(ROW_IN_SMEM ? row_cache[c] : in[c], row_max);
    if (ROW_IN_SMEM) row_cache[c] = e;  // each thread rereads only its own entries: no barrier
    local_sum += lane_sum(e);
  }
  const float row_sum = block_reduce(local_sum, SumOp());

  for (int c = threadIdx.x; c < vectors; c += THREADS) {
    out[c] = scaled(ROW_IN_SMEM ? row_cache[c] : exp_shifted(in[c], row_max), row_sum);
  }
}

#if KOPT_USE_SMEM_TILING
int shared_memory_limit() {  // the most dynamic shared memory one block may opt in to
  static const int limit = [] {
    int device = 0, bytes = 48 * 1024;
    cudaGetDevice(&device);
    cudaDeviceGetAttribute(&bytes, cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
    return bytes;
  }();
  return limit;
}
#endif

template <typename Vec>
void launch(const float* input, float* output, int rows, int cols) {
#if KOPT_USE_SMEM_TILING  // #if, not if: with the method off, the shared-memory kernel is not even compiled
  const size_t row_bytes = (size_t)cols * sizeof(float);
  if (row_bytes <= (size_t)shared_memory_limit()) {
    if (row_bytes > 48 * 1024) {  // beyond the default limit, a block must opt in
      cudaFuncSetAttribute(softmax_kernel<Vec, true>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)row_bytes);
    }
    softmax_kernel<Vec, true><<<rows, THREADS, row_bytes>>>(input, output, cols);
    return;
  }
#endif
  softmax_kernel<Vec, false><<<rows, THREADS>>>(input, output, cols);
}

}  // namespace softmax

extern "C" void solve(const float* input, float* output, int rows, int cols) {
  if (rows <= 0 || cols <= 0) return;
#if KOPT_USE_VECTORIZED_ACCESS  // #if, not if: with the method off, no vector access is even compiled
  const bool aligned = (reinterpret_cast<unsigned long long>(input) | reinterpret_cast<unsigned long long>(output)) % 16 == 0;
  if (aligned && cols % 4 == 0) {
    softmax::launch<float4>(input, output, rows, cols);
    return;
  }
#endif
  softmax::launch<float>(input, output, rows, cols);
}
