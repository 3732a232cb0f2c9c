// One small kernel per sm_90 SASS signature of data/sass_signatures.toml, named
// sig_<signature id> (variants sig_<id>__<what>), and for a signature that checks a
// structure or an absence a kernel without the method, without_<id>; compiled with
// `nvcc -cubin -arch=sm_90` by signature_kernels_test.cpp, which checks that each signature
// matches its own kernels, misses its without_ kernel and, unless structural, the controls.
#include <cstdint>

#include <cooperative_groups.h>
#include <cuda/atomic>
#include <cuda.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cuda_pipeline.h>
#include <mma.h>

namespace cg = cooperative_groups;

// Controls: plain code must match no signature, whatever the function is called.
extern "C" __global__ void control_plain(const float* a, float* b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) b[i] = a[i] * 2.0f + 1.0f;
}

extern "C" __global__ void reduce_red_kernel(const float* a, float* b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) b[i] = a[i] + a[i + 1];
}

extern "C" __global__ void sig_ldg_readonly(const float* a, float* b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) b[i] = __ldg(a + i) * 2.0f;
}

extern "C" __global__ void sig_ldg_streaming(const float* a, float* b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) b[i] = __ldcs(a + i) * 2.0f;
}

extern "C" __global__ void sig_stg_streaming(const float* a, float* b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) __stcs(b + i, a[i] * 2.0f);
}

extern "C" __global__ void sig_vector_access_128(const float4* a, float* b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) { float4 v = a[i]; b[i] = v.x + v.y + v.z + v.w; }
}

extern "C" __global__ void sig_vector_store_128(const float* a, float4* b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) b[i] = make_float4(a[i], a[i] + 1, a[i] + 2, a[i] + 3);
}

extern "C" __global__ void sig_shared_memory(const float* a, float* b, int n) {
  __shared__ float tile[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  tile[threadIdx.x] = i < n ? a[i] : 0.0f;
  __syncthreads();
  if (i < n) b[i] = tile[255 - threadIdx.x];
}

extern "C" __global__ void sig_cp_async(const float* a, float* b, int n) {
  __shared__ float tile[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  __pipeline_memcpy_async(&tile[threadIdx.x], &a[i], sizeof(float));
  __pipeline_commit();
  __pipeline_wait_prior(0);
  __syncthreads();
  if (i < n) b[i] = tile[255 - threadIdx.x];
}

extern "C" __global__ void sig_warp_shuffle(const float* a, float* b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = i < n ? a[i] : 0.0f;
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_xor_sync(0xffffffffu, v, offset);
  if (i < n) b[i] = v;
}

extern "C" __global__ void sig_warp_reduce(const int* a, int* b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = i < n ? a[i] : 0;
  v = __reduce_add_sync(0xffffffffu, v);
  if (i < n) b[i] = v;
}

extern "C" __global__ void sig_global_atomic(const float* a, float* b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(b, a[i]);
}

extern "C" __global__ void sig_shared_atomic(const int* a, int* b, int n) {
  __shared__ int histogram[32];
  if (threadIdx.x < 32) histogram[threadIdx.x] = 0;
  __syncthreads();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&histogram[a[i] & 31], 1);
  __syncthreads();
  if (threadIdx.x < 32) b[blockIdx.x * 32 + threadIdx.x] = histogram[threadIdx.x];
}

extern "C" __global__ void sig_fast_math(const float* a, float* b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) b[i] = __expf(a[i]);
}

extern "C" __global__ void sig_half2_math(const __half2* a, __half2* b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) b[i] = __hmul2(__hadd2(a[i], b[i]), a[i]);
}

extern "C" __global__ void sig_bf16x2_math(const __nv_bfloat162* a, __nv_bfloat162* b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) b[i] = __hfma2(a[i], a[i], b[i]);
}

extern "C" __global__ void sig_mma_sync(const __half* a, const __half* b, float* c) {
  using namespace nvcuda;
  wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
  wmma::fill_fragment(fc, 0.0f);
  wmma::load_matrix_sync(fa, a, 16);
  wmma::load_matrix_sync(fb, b, 16);
  wmma::mma_sync(fc, fa, fb, fc);
  wmma::store_matrix_sync(c, fc, 16, wmma::mem_row_major);
}

extern "C" __global__ void sig_mma_sync_tf32(const float* a, const float* b, float* c) {
  using namespace nvcuda;
  wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 8, float> fc;
  wmma::fill_fragment(fc, 0.0f);
  wmma::load_matrix_sync(fa, a, 16);
  wmma::load_matrix_sync(fb, b, 16);
  wmma::mma_sync(fc, fa, fb, fc);
  wmma::store_matrix_sync(c, fc, 16, wmma::mem_row_major);
}

extern "C" __global__ void sig_ldmatrix(const __half* a, unsigned* b) {
  __shared__ __align__(16) __half tile[16 * 16];
  for (int i = threadIdx.x; i < 256; i += blockDim.x) tile[i] = a[i];
  __syncthreads();
  unsigned r0, r1, r2, r3;
  unsigned address = static_cast<unsigned>(__cvta_generic_to_shared(&tile[(threadIdx.x % 16) * 16 + (threadIdx.x / 16) * 8]));
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
               : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3) : "r"(address));
  b[threadIdx.x] = r0 ^ r1 ^ r2 ^ r3;
}

extern "C" __global__ void sig_stmatrix(const unsigned* a, __half* b) {
  __shared__ __align__(16) __half tile[16 * 16];
  unsigned address = static_cast<unsigned>(__cvta_generic_to_shared(&tile[(threadIdx.x % 16) * 16 + (threadIdx.x / 16) * 8]));
  unsigned r0 = a[threadIdx.x], r1 = r0 + 1, r2 = r0 + 2, r3 = r0 + 3;
  asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1,%2,%3,%4};"
               :: "r"(address), "r"(r0), "r"(r1), "r"(r2), "r"(r3) : "memory");
  __syncthreads();
  for (int i = threadIdx.x; i < 256; i += blockDim.x) b[i] = tile[i];
}

extern "C" __global__ void sig_mbarrier(float* b) {
  __shared__ __align__(8) unsigned long long barrier;
  unsigned address = static_cast<unsigned>(__cvta_generic_to_shared(&barrier));
  if (threadIdx.x == 0) asm volatile("mbarrier.init.shared.b64 [%0], %1;" :: "r"(address), "r"(blockDim.x) : "memory");
  __syncthreads();
  unsigned long long state;
  asm volatile("mbarrier.arrive.shared.b64 %0, [%1];" : "=l"(state) : "r"(address) : "memory");
  unsigned done = 0;
  while (!done) {
    asm volatile("{ .reg .pred p; mbarrier.try_wait.shared.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
                 : "=r"(done) : "r"(address), "l"(state) : "memory");
  }
  b[threadIdx.x] = 1.0f;
}

extern "C" __global__ void sig_bulk_copy(const float* a, float* b) {
  __shared__ __align__(128) float tile[256];
  __shared__ __align__(8) unsigned long long barrier;
  unsigned bar = static_cast<unsigned>(__cvta_generic_to_shared(&barrier));
  unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(tile));
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared.b64 [%0], 1;" :: "r"(bar) : "memory");
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    asm volatile("mbarrier.arrive.expect_tx.shared.b64 _, [%0], 1024;" :: "r"(bar) : "memory");
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], 1024, [%2];"
                 :: "r"(dst), "l"(a), "r"(bar) : "memory");
  }
  __syncthreads();
  unsigned done = 0;
  while (!done) {
    asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared.b64 p, [%1], 0; selp.u32 %0, 1, 0, p; }"
                 : "=r"(done) : "r"(bar) : "memory");
  }
  b[threadIdx.x] = tile[threadIdx.x];
}

extern "C" __global__ void __cluster_dims__(2, 1, 1) sig_cluster_barrier(float* b) {
  __shared__ float tile[128];
  cg::cluster_group cluster = cg::this_cluster();
  tile[threadIdx.x] = threadIdx.x;
  cluster.sync();
  float* other = cluster.map_shared_rank(tile, (cluster.block_rank() + 1) % 2);
  b[blockIdx.x * 128 + threadIdx.x] = other[threadIdx.x];
  cluster.sync();
}

extern "C" __global__ void sig_prefetch_l2(const float* a, float* b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  asm volatile("prefetch.global.L2 [%0];" :: "l"(a + i + 4096));
  if (i < n) b[i] = a[i];
}

extern "C" __global__ void sig_l2_evict_last(const float* a, float* b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = 0;
  uint64_t policy;
  asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(policy));
  if (i < n) asm volatile("ld.global.L2::cache_hint.f32 %0, [%1], %2;" : "=f"(v) : "l"(a + i), "l"(policy));
  if (i < n) b[i] = v;
}

extern "C" __global__ void sig_dp4a(const int* a, int* b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) b[i] = __dp4a(a[i], a[i + 1], b[i]);
}

extern "C" __global__ void sig_grid_dependency(const float* a, float* b, int n) {
  asm volatile("griddepcontrol.wait;" ::: "memory");
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) b[i] = a[i];
  asm volatile("griddepcontrol.launch_dependents;");
}

extern "C" __global__ void sig_tma_load(const __grid_constant__ CUtensorMap tensor_map, float* b) {
  __shared__ __align__(128) float tile[16 * 16];
  __shared__ __align__(8) unsigned long long barrier;
  unsigned bar = static_cast<unsigned>(__cvta_generic_to_shared(&barrier));
  unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(tile));
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared.b64 [%0], 1;" :: "r"(bar) : "memory");
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    asm volatile("mbarrier.arrive.expect_tx.shared.b64 _, [%0], 1024;" :: "r"(bar) : "memory");
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
                 :: "r"(dst), "l"(&tensor_map), "r"(0), "r"(0), "r"(bar) : "memory");
  }
  __syncthreads();
  unsigned done = 0;
  while (!done) {
    asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared.b64 p, [%1], 0; selp.u32 %0, 1, 0, p; }"
                 : "=r"(done) : "r"(bar) : "memory");
  }
  b[threadIdx.x] = tile[threadIdx.x];
}

extern "C" __global__ void sig_mma_int8(const signed char* a, const signed char* b, int* c) {
  using namespace nvcuda;
  wmma::fragment<wmma::matrix_a, 16, 16, 16, signed char, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, signed char, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, int> fc;
  wmma::fill_fragment(fc, 0);
  wmma::load_matrix_sync(fa, a, 16);
  wmma::load_matrix_sync(fb, b, 16);
  wmma::mma_sync(fc, fa, fb, fc);
  wmma::store_matrix_sync(c, fc, 16, wmma::mem_row_major);
}

// Signatures that check a structure or an absence, each beside a kernel without the method
// (without_<id>), where the signature must be missing. Plain code may satisfy an absence
// (no LDL, no DFMA), so for these the controls above prove nothing and the pair does.

// Register tiling: a 4x4 micro-tile per thread (16 FFMA per 8 shared loads) against one
// output per thread from the same shared-memory tiles (1 FFMA per 2 loads).
#define SIG_TILE 16
#define SIG_BLOCK 64
#define SIG_MICRO 4
extern "C" __global__ void sig_register_tile(const float* A, const float* B, float* C, int n) {
  __shared__ float As[SIG_TILE][SIG_BLOCK], Bs[SIG_TILE][SIG_BLOCK];
  const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
  float acc[SIG_MICRO][SIG_MICRO] = {};
  for (int k0 = 0; k0 < n; k0 += SIG_TILE) {
    // 256 threads stage the 16x64 tiles, four elements each.
    const int col = threadIdx.x % SIG_BLOCK, row = threadIdx.x / SIG_BLOCK;
#pragma unroll
    for (int q = 0; q < 4; ++q) {
      As[row * 4 + q][col] = A[(blockIdx.y * SIG_BLOCK + col) * n + k0 + row * 4 + q];
      Bs[row * 4 + q][col] = B[(k0 + row * 4 + q) * n + blockIdx.x * SIG_BLOCK + col];
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < SIG_TILE; ++k) {
      float a[SIG_MICRO], b[SIG_MICRO];
#pragma unroll
      for (int m = 0; m < SIG_MICRO; ++m) {
        a[m] = As[k][ty * SIG_MICRO + m];
        b[m] = Bs[k][tx * SIG_MICRO + m];
      }
#pragma unroll
      for (int m = 0; m < SIG_MICRO; ++m)
#pragma unroll
        for (int q = 0; q < SIG_MICRO; ++q) acc[m][q] += a[m] * b[q];
    }
    __syncthreads();
  }
  for (int m = 0; m < SIG_MICRO; ++m)
    for (int q = 0; q < SIG_MICRO; ++q)
      C[(blockIdx.y * SIG_BLOCK + ty * SIG_MICRO + m) * n + blockIdx.x * SIG_BLOCK + tx * SIG_MICRO + q] = acc[m][q];
}

extern "C" __global__ void without_register_tile(const float* A, const float* B, float* C, int n) {
  __shared__ float As[SIG_TILE][SIG_TILE], Bs[SIG_TILE][SIG_TILE];
  const int r = blockIdx.y * SIG_TILE + threadIdx.y, c = blockIdx.x * SIG_TILE + threadIdx.x;
  float acc = 0;
  for (int k0 = 0; k0 < n; k0 += SIG_TILE) {
    As[threadIdx.y][threadIdx.x] = A[r * n + k0 + threadIdx.x];
    Bs[threadIdx.y][threadIdx.x] = B[(k0 + threadIdx.y) * n + c];
    __syncthreads();
#pragma unroll
    for (int k = 0; k < SIG_TILE; ++k) acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
    __syncthreads();
  }
  C[r * n + c] = acc;
}

extern "C" __global__ void sig_approximate_math(const float* a, float* b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) b[i] = __expf(a[i]) * __logf(a[i] + 2.0f) + __fdividef(a[i + 1], a[i]);
}

extern "C" __global__ void without_approximate_math(const float* a, float* b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) b[i] = expf(a[i]) * logf(a[i] + 2.0f) + a[i + 1] / a[i];
}

extern "C" __global__ void sig_fp32_not_fp64(const float* a, float* b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) b[i] = a[i] * 0.5f + a[i + 1];
}

extern "C" __global__ void without_fp32_not_fp64(const float* a, float* b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) b[i] = static_cast<float>(static_cast<double>(a[i]) * 0.5 + static_cast<double>(a[i + 1]));
}

extern "C" __global__ void sig_fused_multiply_add(const float* a, float* b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) b[i] = a[i] * a[i + 1] + a[i + 2];
}

// The un-fused form the method replaces: explicit round-to-nearest multiply, then add.
extern "C" __global__ void without_fused_multiply_add(const float* a, float* b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) b[i] = __fadd_rn(__fmul_rn(a[i], a[i + 1]), a[i + 2]);
}

extern "C" __global__ void sig_no_local_memory(float* a, int n, int j) {
  float sum = 0;
  for (int q = 0; q < 8; ++q) sum += a[q * n + threadIdx.x];
  a[threadIdx.x] = sum;
}

// A thread-local array indexed at run time lives in local memory (LDL, STL).
extern "C" __global__ void without_no_local_memory(float* a, int n, int j) {
  float local[8];
  for (int q = 0; q < 8; ++q) local[q] = a[q * n + threadIdx.x];
  for (int q = 0; q < 8; ++q) local[(q * j) & 7] += local[q];
  a[threadIdx.x] = local[j & 7];
}

// Division and modulo by a power of two given as its logarithm: shifts and masks.
extern "C" __global__ void sig_no_integer_division(const int* a, int* b, int n, int log2_d) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) b[i] = (a[i] >> log2_d) + (a[i] & ((1 << log2_d) - 1));
}

extern "C" __global__ void without_no_integer_division(const int* a, int* b, int n, int d) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) b[i] = a[i] / d + a[i] % d;
}

extern "C" __global__ void sig_half_storage(const __half* a, __half* b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) b[i] = __float2half(__half2float(a[i]) * 2.0f + 1.0f);
}

extern "C" __global__ void without_half_storage(const float* a, float* b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) b[i] = a[i] * 2.0f + 1.0f;
}

// Split-K: each block sums one K chunk and adds its partial result atomically.
extern "C" __global__ void sig_atomic_partial_sums(const float* a, const float* x, float* y, int k, int chunk) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  float acc = 0;
  for (int kk = blockIdx.y * chunk; kk < (blockIdx.y + 1) * chunk && kk < k; ++kk) acc += a[row * k + kk] * x[kk];
  atomicAdd(&y[row], acc);
}

extern "C" __global__ void without_atomic_partial_sums(const float* a, const float* x, float* y, int k, int chunk) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  float acc = 0;
  for (int kk = 0; kk < k; ++kk) acc += a[row * k + kk] * x[kk];
  y[row] = acc;
}

// 128-bit shared-memory reads and 16-byte asynchronous copies count as vector accesses, not
// only LDG.128: here the global side stays 32-bit.
extern "C" __global__ void sig_vector_access_128__shared(const float* a, float* b, int n) {
  __shared__ float4 tile[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  __pipeline_memcpy_async(&tile[threadIdx.x], reinterpret_cast<const float4*>(a) + i, 16);
  __pipeline_commit();
  __pipeline_wait_prior(0);
  __syncthreads();
  float4 v = tile[255 - threadIdx.x];
  b[i] = v.x + v.y + v.z + v.w;
}

extern "C" __global__ void without_vector_access_128(const float* a, float* b, int n) {
  __shared__ float tile[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  tile[threadIdx.x] = a[i];
  __syncthreads();
  b[i] = tile[255 - threadIdx.x] + tile[threadIdx.x ^ 1];
}

// A half converted to float (HADD2.F32) is storage, not packed-half arithmetic.
extern "C" __global__ void without_half2_math(const __half* a, float* b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) b[i] = __half2float(a[i]) * 2.0f;
}

// A histogram whose lanes meet on the same bins: one atomic per distinct key per warp.
extern "C" __global__ void sig_match_aggregated_atomic(const int* keys, int* histogram, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    const int key = keys[i];
    const unsigned peers = __match_any_sync(__activemask(), key);
    if ((threadIdx.x & 31) == __ffs(peers) - 1) atomicAdd(&histogram[key], __popc(peers));
  }
}

extern "C" __global__ void without_match_aggregated_atomic(const int* keys, int* histogram, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&histogram[keys[i]], 1);
}

// Both sides computed and one selected, against an if/else whose sides diverge.
extern "C" __global__ void sig_select_not_branch(const float* a, float* b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    const float x = a[i];
    float r = 0;
    for (int k = 0; k < 8; ++k) {
      const float positive = __sinf(x * k) * a[i + k];
      const float negative = -__cosf(x + k) * a[i + k + 1];
      r += x > 0 ? positive : negative;
    }
    b[i] = r;
  }
}

extern "C" __global__ void without_select_not_branch(const float* a, float* b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    const float x = a[i];
    float r = 0;
    if (x > 0) {
      for (int k = 0; k < 8; ++k) r += __sinf(x * k) * a[i + k];
    } else {
      for (int k = 0; k < 8; ++k) r -= __cosf(x + k) * a[i + k + 1];
    }
    b[i] = r;
  }
}

// Filter weights in __constant__ memory: FFMA reads them as operands, without a load.
__constant__ float sig_weights[16];
extern "C" __global__ void sig_user_constant_operands(const float* a, float* b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float sum = 0;
  for (int k = 0; k < 16; ++k) sum += sig_weights[k] * a[i + k];
  b[i] = sum;
}

extern "C" __global__ void without_user_constant_operands(const float* a, const float* weights, float* b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float sum = 0;
  for (int k = 0; k < 16; ++k) sum += weights[k] * a[i + k];
  b[i] = sum;
}

// FMA density (compute.instruction_overhead): an 8x8 micro-tile read with 128-bit shared
// loads and compile-time strides, against a 4x4 one with scalar reads and a run-time stride.
#define SIG_DENSE_BLOCK 128
extern "C" __global__ void sig_fma_dense(const float* A, const float* B, float* C, int n) {
  __shared__ __align__(16) float As[SIG_TILE][SIG_DENSE_BLOCK], Bs[SIG_TILE][SIG_DENSE_BLOCK];
  const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
  float acc[8][8] = {};
  for (int k0 = 0; k0 < n; k0 += SIG_TILE) {
#pragma unroll
    for (int q = 0; q < 8; ++q) {
      const int e = threadIdx.x + 256 * q;
      As[e / SIG_DENSE_BLOCK][e % SIG_DENSE_BLOCK] = A[(blockIdx.y * SIG_DENSE_BLOCK + e % SIG_DENSE_BLOCK) * n + k0 + e / SIG_DENSE_BLOCK];
      Bs[e / SIG_DENSE_BLOCK][e % SIG_DENSE_BLOCK] = B[(k0 + e / SIG_DENSE_BLOCK) * n + blockIdx.x * SIG_DENSE_BLOCK + e % SIG_DENSE_BLOCK];
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < SIG_TILE; ++k) {
      float a[8], b[8];
      *reinterpret_cast<float4*>(&a[0]) = *reinterpret_cast<const float4*>(&As[k][ty * 8]);
      *reinterpret_cast<float4*>(&a[4]) = *reinterpret_cast<const float4*>(&As[k][ty * 8 + 4]);
      *reinterpret_cast<float4*>(&b[0]) = *reinterpret_cast<const float4*>(&Bs[k][tx * 8]);
      *reinterpret_cast<float4*>(&b[4]) = *reinterpret_cast<const float4*>(&Bs[k][tx * 8 + 4]);
#pragma unroll
      for (int m = 0; m < 8; ++m)
#pragma unroll
        for (int q = 0; q < 8; ++q) acc[m][q] += a[m] * b[q];
    }
    __syncthreads();
  }
  for (int m = 0; m < 8; ++m)
    for (int q = 0; q < 8; ++q) C[(blockIdx.y * SIG_DENSE_BLOCK + ty * 8 + m) * n + blockIdx.x * SIG_DENSE_BLOCK + tx * 8 + q] = acc[m][q];
}

extern "C" __global__ void without_fma_dense(const float* A, const float* B, float* C, int n, int stride) {
  __shared__ float As[SIG_TILE][SIG_BLOCK + 1], Bs[SIG_TILE][SIG_BLOCK + 1];
  const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
  float acc[4][4] = {};
  for (int k0 = 0; k0 < n; k0 += SIG_TILE) {
    const int col = threadIdx.x % SIG_BLOCK, row = threadIdx.x / SIG_BLOCK;
    for (int q = 0; q < 4; ++q) {
      As[row * 4 + q][col] = A[(blockIdx.y * SIG_BLOCK + col) * stride + k0 + row * 4 + q];
      Bs[row * 4 + q][col] = B[(k0 + row * 4 + q) * stride + blockIdx.x * SIG_BLOCK + col];
    }
    __syncthreads();
    for (int k = 0; k < SIG_TILE; ++k) {
      float a[4], b[4];
      for (int m = 0; m < 4; ++m) {
        a[m] = As[k][ty + 16 * m];
        b[m] = Bs[k][tx + 16 * m];
      }
      for (int m = 0; m < 4; ++m)
        for (int q = 0; q < 4; ++q) acc[m][q] += a[m] * b[q];
    }
    __syncthreads();
  }
  for (int m = 0; m < 4; ++m)
    for (int q = 0; q < 4; ++q) C[(blockIdx.y * SIG_BLOCK + ty + 16 * m) * stride + blockIdx.x * SIG_BLOCK + tx + 16 * q] = acc[m][q];
}

// Issue 58's structural signatures (data/sass_signatures.toml, sass_structure.hpp): each
// kernel with the method beside the same kernel without it.

// Division replaced by one reciprocal and multiplications (compute.reciprocal_multiply).
extern "C" __global__ void sig_reciprocal_not_division(const float* a, float* b, int n, float d) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  const float r = 1.0f / d;
  if (i < n) { b[i] = a[i] * r; b[i + n] = a[i + n] * r; }
}

extern "C" __global__ void without_reciprocal_not_division(const float* a, float* b, int n, float d) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) { b[i] = a[i] / d; b[i + n] = a[i + n] / d; }
}

// An unrolled loop (compute.loop_unrolling): 8 loads and adds per trip against 1.
extern "C" __global__ void sig_unrolled_loop(const float* a, float* b, int n) {
  float acc = 0;
#pragma unroll 8
  for (int k = 0; k < n; ++k) acc += a[k * 32 + threadIdx.x];
  b[threadIdx.x] = acc;
}

extern "C" __global__ void without_unrolled_loop(const float* a, float* b, int n) {
  float acc = 0;
#pragma unroll 1
  for (int k = 0; k < n; ++k) acc += a[k * 32 + threadIdx.x];
  b[threadIdx.x] = acc;
}

// A grid-stride loop (latency.grid_stride_loop): the stride reads gridDim.
extern "C" __global__ void sig_grid_stride(const float* a, float* b, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) b[i] = a[i] * 2.0f;
}

extern "C" __global__ void without_grid_stride(const float* a, float* b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) b[i] = a[i] * 2.0f;
}

// Four independent accumulators (latency.independent_accumulators) against one, which nvcc
// unrolls 16 times into one chain.
extern "C" __global__ void sig_independent_accumulators(const float* a, const float* x, float* y, int k) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  float s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  for (int kk = 0; kk + 3 < k; kk += 4) {
    s0 += a[(kk + 0) * 4096 + row] * x[kk + 0];
    s1 += a[(kk + 1) * 4096 + row] * x[kk + 1];
    s2 += a[(kk + 2) * 4096 + row] * x[kk + 2];
    s3 += a[(kk + 3) * 4096 + row] * x[kk + 3];
  }
  y[row] = (s0 + s1) + (s2 + s3);
}

extern "C" __global__ void without_independent_accumulators(const float* a, const float* x, float* y, int k) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  float s = 0;
  for (int kk = 0; kk < k; ++kk) s += a[kk * 4096 + row] * x[kk];
  y[row] = s;
}

// Four elements per thread, every load issued before the first add (latency.ilp_multiple_elements).
extern "C" __global__ void sig_loads_in_flight(const float* a, const float* c, float* b, int n) {
  int i = blockIdx.x * blockDim.x * 4 + threadIdx.x;
  float x[4], y[4];
#pragma unroll
  for (int q = 0; q < 4; ++q) { x[q] = a[i + q * blockDim.x]; y[q] = c[i + q * blockDim.x]; }
#pragma unroll
  for (int q = 0; q < 4; ++q) b[i + q * blockDim.x] = x[q] + y[q];
}

extern "C" __global__ void without_loads_in_flight(const float* a, const float* c, float* b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) b[i] = a[i] + c[i];
}

// Stream-K's fix-up (compute.stream_k): two blocks share a tile's K range; the second hands
// its partial sums over through a workspace, a release store and an acquire spin (or a
// __threadfence and an atomic flag), against partial sums added atomically (split-K).
extern "C" __global__ void sig_fenced_partial_tiles(const float* a, const float* x, float* y, float* partial, int* flags, int k) {
  int row = threadIdx.x, half = blockIdx.x & 1, tile = blockIdx.x >> 1;
  float acc = 0;
  for (int kk = half * (k / 2); kk < (half + 1) * (k / 2); ++kk) acc += a[(tile * 128 + row) * k + kk] * x[kk];
  cuda::atomic_ref<int, cuda::thread_scope_device> flag(flags[tile]);
  if (half == 1) {
    partial[tile * 128 + row] = acc;
    __syncthreads();
    if (row == 0) flag.store(1, cuda::memory_order_release);
  } else {
    if (row == 0) while (flag.load(cuda::memory_order_acquire) == 0) {}
    __syncthreads();
    y[tile * 128 + row] = acc + partial[tile * 128 + row];
  }
}

extern "C" __global__ void sig_fenced_partial_tiles__threadfence(const float* a, const float* x, float* y, float* partial, int* flags, int k) {
  int row = threadIdx.x, half = blockIdx.x & 1, tile = blockIdx.x >> 1;
  float acc = 0;
  for (int kk = half * (k / 2); kk < (half + 1) * (k / 2); ++kk) acc += a[(tile * 128 + row) * k + kk] * x[kk];
  if (half == 1) {
    partial[tile * 128 + row] = acc;
    __threadfence();
    __syncthreads();
    if (row == 0) atomicExch(&flags[tile], 1);
  } else {
    if (row == 0) while (atomicAdd(&flags[tile], 0) == 0) {}
    __syncthreads();
    __threadfence();
    y[tile * 128 + row] = acc + partial[tile * 128 + row];
  }
}

extern "C" __global__ void without_fenced_partial_tiles(const float* a, const float* x, float* y, float* partial, int* flags, int k) {
  int row = threadIdx.x, half = blockIdx.x & 1, tile = blockIdx.x >> 1;
  float acc = 0;
  for (int kk = half * (k / 2); kk < (half + 1) * (k / 2); ++kk) acc += a[(tile * 128 + row) * k + kk] * x[kk];
  atomicAdd(&y[tile * 128 + row], acc);
}

// Online softmax (compute.online_softmax): the maximum and the rescaled sum of exponentials
// in one loop, against a loop for the maximum and another for the sum.
extern "C" __global__ void sig_max_and_exp_in_one_loop(const float* x, float* y, int n) {
  const float* r = x + (blockIdx.x * blockDim.x + threadIdx.x) * n;
  float m = __int_as_float(0xff800000), s = 0;
  for (int j = 0; j < n; ++j) {
    const float v = r[j], m2 = fmaxf(m, v);
    s = s * __expf(m - m2) + __expf(v - m2);
    m = m2;
  }
  for (int j = 0; j < n; ++j) y[j] = __expf(r[j] - m) / s;
}

extern "C" __global__ void without_max_and_exp_in_one_loop(const float* x, float* y, int n) {
  const float* r = x + (blockIdx.x * blockDim.x + threadIdx.x) * n;
  float m = __int_as_float(0xff800000), s = 0;
  for (int j = 0; j < n; ++j) m = fmaxf(m, r[j]);
  for (int j = 0; j < n; ++j) s += __expf(r[j] - m);
  for (int j = 0; j < n; ++j) y[j] = __expf(r[j] - m) / s;
}

// An XOR-swizzled shared-memory transpose (memory.smem_swizzle) against a padded one.
extern "C" __global__ void sig_xor_swizzled_shared(const float* a, float* b) {
  __shared__ float t[32 * 32];
  int x = threadIdx.x, y = threadIdx.y;
  t[y * 32 + (x ^ y)] = a[(blockIdx.y * 32 + y) * 4096 + blockIdx.x * 32 + x];
  __syncthreads();
  b[(blockIdx.x * 32 + y) * 4096 + blockIdx.y * 32 + x] = t[x * 32 + (y ^ x)];
}

extern "C" __global__ void without_xor_swizzled_shared(const float* a, float* b) {
  __shared__ float t[32 * 33];
  int x = threadIdx.x, y = threadIdx.y;
  t[y * 33 + x] = a[(blockIdx.y * 32 + y) * 4096 + blockIdx.x * 32 + x];
  __syncthreads();
  b[(blockIdx.x * 32 + y) * 4096 + blockIdx.y * 32 + x] = t[x * 33 + y];
}

// Register double buffering (latency.register_double_buffer): the next tile's global loads
// issued before the current tile's math and stored to shared memory after it, against loads
// stored at once.
extern "C" __global__ void sig_loads_held_across_math(const float* A, const float* B, float* C, int n) {
  __shared__ float As[16][16], Bs[16][16];
  const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
  const int row = blockIdx.y * 16 + ty, col = blockIdx.x * 16 + tx;
  float a = A[row * n + tx], b = B[ty * n + col], acc = 0;
  for (int k0 = 0; k0 < n; k0 += 16) {
    As[ty][tx] = a;
    Bs[ty][tx] = b;
    __syncthreads();
    if (k0 + 16 < n) {
      a = A[row * n + k0 + 16 + tx];
      b = B[(k0 + 16 + ty) * n + col];
    }
#pragma unroll
    for (int k = 0; k < 16; ++k) acc += As[ty][k] * Bs[k][tx];
    __syncthreads();
  }
  C[row * n + col] = acc;
}

extern "C" __global__ void without_loads_held_across_math(const float* A, const float* B, float* C, int n) {
  __shared__ float As[16][16], Bs[16][16];
  const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
  const int row = blockIdx.y * 16 + ty, col = blockIdx.x * 16 + tx;
  float acc = 0;
  for (int k0 = 0; k0 < n; k0 += 16) {
    As[ty][tx] = A[row * n + k0 + tx];
    Bs[ty][tx] = B[(k0 + ty) * n + col];
    __syncthreads();
#pragma unroll
    for (int k = 0; k < 16; ++k) acc += As[ty][k] * Bs[k][tx];
    __syncthreads();
  }
  C[row * n + col] = acc;
}

// An epilogue fused into the product (compute.epilogue_fusion): bias and ReLU applied to the
// accumulator before the store, against the accumulator stored as it is.
extern "C" __global__ void sig_accumulator_epilogue(const float* a, const float* x, const float* bias, float* y, int k) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  float acc = 0;
  for (int kk = 0; kk < k; ++kk) acc += a[kk * 4096 + row] * x[kk];
  y[row] = fmaxf(acc + bias[row], 0.0f);
}

extern "C" __global__ void without_accumulator_epilogue(const float* a, const float* x, const float* bias, float* y, int k) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  float acc = 0;
  for (int kk = 0; kk < k; ++kk) acc += a[kk * 4096 + row] * x[kk];
  y[row] = acc;
}

// A raster swizzle (compute.raster_swizzle): a 1-D grid's block index mapped to tiles in
// groups of 8 tile rows, against the 2-D grid's block indices used as they are.
extern "C" __global__ void sig_block_index_remap(const float* A, const float* B, float* C, int n) {
  const int tiles_n = n / 16, pid = blockIdx.x;
  const int tm = (pid / (8 * tiles_n)) * 8 + pid % 8, tn = (pid % (8 * tiles_n)) / 8;
  const int row = tm * 16 + threadIdx.y, col = tn * 16 + threadIdx.x;
  float acc = 0;
  for (int k = 0; k < n; ++k) acc += A[row * n + k] * B[k * n + col];
  C[row * n + col] = acc;
}

extern "C" __global__ void without_block_index_remap(const float* A, const float* B, float* C, int n) {
  const int row = blockIdx.y * 16 + threadIdx.y, col = blockIdx.x * 16 + threadIdx.x;
  float acc = 0;
  for (int k = 0; k < n; ++k) acc += A[row * n + k] * B[k * n + col];
  C[row * n + col] = acc;
}

// Coalesced loads (memory.coalescing): a matrix-vector product whose warp reads consecutive
// floats of a column-major matrix, against one row per thread (a stride of k floats).
extern "C" __global__ void sig_coalesced_loads(const float* a, const float* x, float* y, int m, int k) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  float acc = 0;
  for (int kk = 0; kk < k; ++kk) acc += a[kk * m + row] * x[kk];
  y[row] = acc;
}

extern "C" __global__ void without_coalesced_loads(const float* a, const float* x, float* y, int m, int k) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  float acc = 0;
  for (int kk = 0; kk < k; ++kk) acc += a[row * k + kk] * x[kk];
  y[row] = acc;
}
