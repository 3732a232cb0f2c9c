// One small kernel per sm_90 SASS signature of data/sass_signatures.toml, named
// sig_<signature id>; compiled with `nvcc -cubin -arch=sm_90` by signature_kernels_test.cpp,
// which checks that each signature matches its own kernel and not the controls.
#include <cstdint>

#include <cooperative_groups.h>
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

extern "C" __global__ void sig_vector_load_128(const float4* a, float* b, int n) {
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
