// Control: copies every input, byte for byte, to an output of its type. The kernel's worker
// generates its inputs on the GPU; the Python reference copies the host generator's values:
// the check passes (tolerance 0) only if both generators write the same bits for every type
// (docs/check.md, "Inputs and references"; tests/unit/run/generator_agreement_test.cpp holds
// the host to the device's rules on the CPU).
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>

template <typename T>
__global__ void copy(const T* in, T* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i];
}

template <typename T>
void copy_all(const T* in, T* out, int n) {
  copy<<<(n + 255) / 256, 256>>>(in, out, n);
}

extern "C" void solve(const double* A64, const float* A32, const __half* A16, const __nv_bfloat16* ABF,
                      const int8_t* I8, const int32_t* I32, const int64_t* I64, double* C64, float* C32,
                      __half* C16, __nv_bfloat16* CBF, int8_t* D8, int32_t* D32, int64_t* D64, int N) {
  copy_all(A64, C64, N);
  copy_all(A32, C32, N);
  copy_all(A16, C16, N);
  copy_all(ABF, CBF, N);
  copy_all(I8, D8, N);
  copy_all(I32, D32, N);
  copy_all(I64, D64, N);
}
