// C = A + B over N floats.
//
// As written (every switch at its default, off) this is the naive kernel: one thread per
// element, one block per THREADS elements, one load of A and one of B in flight per thread.
// That is the baseline of kopt's examples. On an H200 it moves DRAM at about 80 % of the
// measured copy bandwidth: with at most 2,048 threads per SM, each waiting on 8 bytes, too
// few bytes are in flight to cover DRAM latency (docs/profiling.md).
//
// Each switch is a method of kopt's catalog that the tuner may turn on; kopt rebuilds with
// -DNAME=VALUE. The kernel is correct for any N >= 0 and any combination: float4 access is
// used only when all three pointers are 16-byte aligned, and block 0 adds the N % 4 elements
// past the last whole vector.
#include <cuda_runtime.h>

#include <algorithm>

// ---- tunable parameters -------------------------------------------------------------------

#ifndef THREADS
#define THREADS 256  // kopt:param THREADS in {128,256,512,1024}
#endif
// Vectors per thread, with the ILP switch on (else 1).
#ifndef ITEMS
#define ITEMS 4  // kopt:param ITEMS in {2,4,8}
#endif
// Resident blocks per SM the grid is sized for, with the grid-stride loop on (else one block
// per THREADS * ITEMS vectors).
#ifndef BLOCKS_PER_SM
#define BLOCKS_PER_SM 8  // kopt:param BLOCKS_PER_SM in {2,4,8,16}
#endif

// ---- method switches (off by default: the baseline is the naive kernel) --------------------

#ifndef KOPT_USE_VECTORIZED_ACCESS
#define KOPT_USE_VECTORIZED_ACCESS 0  // kopt:method memory.vectorized_access
#endif
#ifndef KOPT_USE_ILP_MULTIPLE_ELEMENTS
#define KOPT_USE_ILP_MULTIPLE_ELEMENTS 0  // kopt:method latency.ilp_multiple_elements
#endif
#ifndef KOPT_USE_GRID_STRIDE_LOOP
#define KOPT_USE_GRID_STRIDE_LOOP 0  // kopt:method latency.grid_stride_loop
#endif

static_assert(THREADS % 32 == 0 && THREADS <= 1024, "THREADS: whole warps, at most 1024");

namespace vector_add {

constexpr int per_thread = KOPT_USE_ILP_MULTIPLE_ELEMENTS ? ITEMS : 1;

__device__ __forceinline__ float add(float x, float y) { return x + y; }
__device__ __forceinline__ float4 add(float4 x, float4 y) { return {x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w}; }

}  // namespace vector_add

// Vec is float4 or float. Each thread adds per_thread Vecs THREADS apart (so a warp's accesses
// stay contiguous), all loads before the first store; the N - vectors*width floats after the
// last whole Vec are added by block 0.
template <typename Vec>
__global__ void __launch_bounds__(THREADS) vector_add_kernel(const float* A, const float* B, float* C, int N) {
  constexpr int width = sizeof(Vec) / sizeof(float);
  constexpr long long per_block = (long long)THREADS * vector_add::per_thread;
  const long long vectors = N / width;
  const Vec* a = reinterpret_cast<const Vec*>(A);
  const Vec* b = reinterpret_cast<const Vec*>(B);
  Vec* c = reinterpret_cast<Vec*>(C);
  const long long stride = KOPT_USE_GRID_STRIDE_LOOP ? gridDim.x * per_block : vectors;
  for (long long base = blockIdx.x * per_block + threadIdx.x; base < vectors; base += stride) {
    Vec x[vector_add::per_thread], y[vector_add::per_thread];
#pragma unroll
    for (int k = 0; k < vector_add::per_thread; ++k) {
      const long long j = base + (long long)k * THREADS;
      if (j < vectors) {
        x[k] = a[j];
        y[k] = b[j];
      }
    }
#pragma unroll
    for (int k = 0; k < vector_add::per_thread; ++k) {
      const long long j = base + (long long)k * THREADS;
      if (j < vectors) c[j] = vector_add::add(x[k], y[k]);
    }
  }
  if (width > 1 && blockIdx.x == 0) {
    for (long long j = vectors * width + threadIdx.x; j < N; j += THREADS) C[j] = A[j] + B[j];
  }
}

namespace vector_add {

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
void launch(const float* A, const float* B, float* C, int N) {
  const long long vectors = N / (sizeof(Vec) / sizeof(float));
  const long long per_block = (long long)THREADS * per_thread;
  long long blocks = (vectors + per_block - 1) / per_block;
  if (KOPT_USE_GRID_STRIDE_LOOP) blocks = std::min<long long>(blocks, (long long)multiprocessor_count() * BLOCKS_PER_SM);
  if (blocks < 1) blocks = 1;  // the tail (N < width) still needs block 0
  vector_add_kernel<Vec><<<(unsigned)blocks, THREADS>>>(A, B, C, N);
}

bool aligned16(const void* p) { return reinterpret_cast<unsigned long long>(p) % 16 == 0; }

}  // namespace vector_add

extern "C" void solve(const float* A, const float* B, float* C, int N) {
  if (N <= 0) return;
#if KOPT_USE_VECTORIZED_ACCESS  // #if, not if: with the method off, no vector access is even compiled
  if (vector_add::aligned16(A) && vector_add::aligned16(B) && vector_add::aligned16(C)) {
    vector_add::launch<float4>(A, B, C, N);
    return;
  }
#endif
  vector_add::launch<float>(A, B, C, N);
}
