// Sum of N floats into output[0].
//
// Each thread adds up ITEMS vectors (float4, or single floats when vector loads are off) per
// step, striding over the input with the whole grid (grid-stride loop); the block's threads
// then combine their partial sums (warp shuffles, or a shared-memory tree when that method is
// off) and thread 0 adds the block's sum to output[0] with one atomicAdd. With the grid-stride
// loop off, the grid covers the input once: one step per thread and one atomicAdd per block.
//
// Every parameter and method switch is a macro; kopt rebuilds with -DNAME=VALUE. The kernel is
// correct for any N >= 0 and any combination: the host uses float4 loads only when the input
// pointer is 16-byte aligned, and block 0 adds the N % 4 elements past the last whole vector.
//
// The defaults are deliberately weak (one warp per block, one block per SM, one vector in
// flight per thread): correct and slow, so that the tuner has room.
//
// Nondeterminism: blocks reach the atomicAdd in no fixed order and fp32 addition is not
// associative, so the low bits of the result can differ from run to run on the same input
// (by ~1e-1 at most for N = 2^26, well inside the spec's tolerance; see kopt.toml).
#include <cuda_runtime.h>

#include <algorithm>

// ---- tunable parameters -------------------------------------------------------------------

#ifndef THREADS
#define THREADS 32  // kopt:param THREADS in {32,64,128,256,512,1024}
#endif
#ifndef ITEMS
#define ITEMS 1  // kopt:param ITEMS in {1,2,4,8}
#endif
#ifndef BLOCKS_PER_SM
#define BLOCKS_PER_SM 1  // kopt:param BLOCKS_PER_SM in {1,2,4,8,16,32}
#endif

// ---- method switches (each can be turned off with -DKOPT_USE_...=0) ------------------------

#ifndef KOPT_USE_VECTORIZED_ACCESS
#define KOPT_USE_VECTORIZED_ACCESS 1  // kopt:method memory.vectorized_access
#endif
#ifndef KOPT_USE_GRID_STRIDE_LOOP
#define KOPT_USE_GRID_STRIDE_LOOP 1  // kopt:method latency.grid_stride_loop
#endif
#ifndef KOPT_USE_WARP_SHUFFLE_REDUCTION
#define KOPT_USE_WARP_SHUFFLE_REDUCTION 1  // kopt:method latency.warp_shuffle_reduction
#endif

static_assert(THREADS % 32 == 0 && THREADS <= 1024, "THREADS: whole warps, at most 1024");

namespace reduction {

__device__ __forceinline__ float lane_sum(float v) { return v; }
__device__ __forceinline__ float lane_sum(float4 v) { return (v.x + v.y) + (v.z + v.w); }

// The block's sum, valid in thread 0.
__device__ float block_sum(float value) {
#if KOPT_USE_WARP_SHUFFLE_REDUCTION
  __shared__ float warp_sums[THREADS / 32];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  for (int offset = 16; offset > 0; offset >>= 1) value += __shfl_down_sync(0xffffffffu, value, offset);
  if (lane == 0) warp_sums[warp] = value;
  __syncthreads();
  if (warp == 0) {
    value = lane < THREADS / 32 ? warp_sums[lane] : 0.0f;
    for (int offset = 16; offset > 0; offset >>= 1) value += __shfl_down_sync(0xffffffffu, value, offset);
  }
  return value;
#else
  __shared__ float partial[THREADS];
  partial[threadIdx.x] = value;
  __syncthreads();
  for (int stride = THREADS / 2; stride > 0; stride >>= 1) {
    if (threadIdx.x < stride) partial[threadIdx.x] += partial[threadIdx.x + stride];
    __syncthreads();
  }
  return partial[0];
#endif
}

// Vec is float4 or float. `vectors` whole Vecs are read through `input`; the n - vectors*width
// floats after them are added by block 0.
template <typename Vec>
__global__ void __launch_bounds__(THREADS) sum_kernel(const float* __restrict__ input, float* output, long long n) {
  constexpr int width = sizeof(Vec) / sizeof(float);
  const long long vectors = n / width;
  const Vec* in = reinterpret_cast<const Vec*>(input);
  constexpr long long step_per_block = (long long)THREADS * ITEMS;
  const long long stride = KOPT_USE_GRID_STRIDE_LOOP ? gridDim.x * step_per_block : vectors;
  float sum = 0.0f;
  for (long long base = blockIdx.x * step_per_block + threadIdx.x; base < vectors; base += stride) {
    Vec v[ITEMS];
#pragma unroll
    for (int k = 0; k < ITEMS; ++k) {  // all loads first: ITEMS independent requests in flight
      const long long j = base + (long long)k * THREADS;
      v[k] = j < vectors ? in[j] : Vec{};
    }
#pragma unroll
    for (int k = 0; k < ITEMS; ++k) sum += lane_sum(v[k]);
  }
  if (blockIdx.x == 0) {
    for (long long j = vectors * width + threadIdx.x; j < n; j += THREADS) sum += input[j];
  }
  sum = block_sum(sum);
  if (threadIdx.x == 0) atomicAdd(output, sum);
}

int multiprocessor_count() {
  static const int count = [] {
    int device = 0, sms = 1;
    cudaGetDevice(&device);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
    return sms;
  }();
  return count;
}

template <typename Vec>
void launch(const float* input, float* output, long long n) {
  const long long vectors = n / (sizeof(Vec) / sizeof(float));
  const long long step_per_block = (long long)THREADS * ITEMS;
  long long blocks = (vectors + step_per_block - 1) / step_per_block;
  if (KOPT_USE_GRID_STRIDE_LOOP) blocks = std::min<long long>(blocks, (long long)multiprocessor_count() * BLOCKS_PER_SM);
  if (blocks < 1) blocks = 1;  // the tail (n < width) still needs block 0
  sum_kernel<Vec><<<(unsigned)blocks, THREADS>>>(input, output, n);
}

}  // namespace reduction

extern "C" void solve(const float* input, float* output, int N) {
  // kopt poisons outputs before each run: the sum must start from zero. Same (default)
  // stream as the kernel, so ordered before it.
  cudaMemsetAsync(output, 0, sizeof(float), 0);
  if (N <= 0) return;
#if KOPT_USE_VECTORIZED_ACCESS  // #if, not if: with the method off, no vector load is even compiled
  if (reinterpret_cast<unsigned long long>(input) % 16 == 0) {
    reduction::launch<float4>(input, output, N);
    return;
  }
#endif
  reduction::launch<float>(input, output, N);
}
