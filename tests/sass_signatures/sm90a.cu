// The sm_90a-only signatures (warpgroup MMA in BF16/FP16 and FP8, register reallocation, TMA
// multicast: sm_90a is its intended target), compiled with
// `nvcc -cubin -arch=sm_90a`; see sm90.cu.
#include <cuda.h>

#include <cstdint>

extern "C" __global__ void sig_wgmma(const uint64_t* descriptors, float* c) {
  float d[8] = {};
  uint64_t desc_a = descriptors[0], desc_b = descriptors[1];
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
  asm volatile(
      "{ .reg .pred p; setp.ne.b32 p, 0, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16 {%0,%1,%2,%3,%4,%5,%6,%7}, %8, %9, p, 1, 1, 0, 0; }"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7])
      : "l"(desc_a), "l"(desc_b));
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
  asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
  for (int i = 0; i < 8; ++i) c[threadIdx.x * 8 + i] = d[i];
}

extern "C" __global__ void __launch_bounds__(384, 1) sig_setmaxnreg(const float* a, float* b, int n) {
  if (threadIdx.x < 128) asm volatile("setmaxnreg.dec.sync.aligned.u32 40;");
  else asm volatile("setmaxnreg.inc.sync.aligned.u32 232;");
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) b[i] = a[i];
}

extern "C" __global__ void control_plain_90a(const float* a, float* b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) b[i] = a[i] * 2.0f + 1.0f;
}

// FP8 (e4m3) operands: QGMMA. FP8 wgmma takes no transpose immediates.
extern "C" __global__ void sig_wgmma_fp8(const uint64_t* descriptors, float* c) {
  float d[8] = {};
  uint64_t desc_a = descriptors[0], desc_b = descriptors[1];
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
  asm volatile(
      "{ .reg .pred p; setp.ne.b32 p, 0, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n16k32.f32.e4m3.e4m3 {%0,%1,%2,%3,%4,%5,%6,%7}, %8, %9, p, 1, 1; }"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7])
      : "l"(desc_a), "l"(desc_b));
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
  asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
  for (int i = 0; i < 8; ++i) c[threadIdx.x * 8 + i] = d[i];
}

// A TMA load (as sig_tma_load in sm90.cu) multicast to both blocks of a 2-block cluster (ctaMask 0b11): UTMALDG.MULTICAST.
extern "C" __global__ void __cluster_dims__(2, 1, 1) sig_tma_multicast(const __grid_constant__ CUtensorMap tensor_map,
                                                                        float* b) {
  __shared__ __align__(128) float tile[16 * 16];
  __shared__ __align__(8) unsigned long long barrier;
  unsigned bar = static_cast<unsigned>(__cvta_generic_to_shared(&barrier));
  unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(tile));
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared.b64 [%0], 1;" :: "r"(bar) : "memory");
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    asm volatile("mbarrier.arrive.expect_tx.shared.b64 _, [%0], 1024;" :: "r"(bar) : "memory");
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster "
        "[%0], [%1, {%2, %3}], [%4], %5;"
        :: "r"(dst), "l"(&tensor_map), "r"(0), "r"(0), "r"(bar), "h"(static_cast<unsigned short>(3)) : "memory");
  }
  __syncthreads();
  unsigned done = 0;
  while (!done) {
    asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared.b64 p, [%1], 0; selp.u32 %0, 1, 0, p; }"
                 : "=r"(done) : "r"(bar) : "memory");
  }
  b[threadIdx.x] = tile[threadIdx.x];
}
