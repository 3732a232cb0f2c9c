// The sm_90a-only signatures (warpgroup MMA, register reallocation), compiled with
// `nvcc -cubin -arch=sm_90a`; see sm90.cu.
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
