// mxfp8-dequantize, written for kopt's import check: each e4m3 element (OCP FP8: bias 7, no
// infinity, 0x7F/0xFF NaN) times its block's e8m0 scale 2^(s - 127) (0xFF NaN), 32 elements a
// block along k. q and scale are the host-written halves of one to_mx quantization.
#include <cstddef>
#include <cstdint>
#include <cuda_runtime.h>

__device__ float e4m3_value(uint8_t bits) {
  const float sign = (bits & 0x80) ? -1.0f : 1.0f;
  const int exponent = (bits >> 3) & 0xF;
  const int mantissa = bits & 0x7;
  if (exponent == 0xF && mantissa == 0x7) return __int_as_float(0x7fc00000);
  if (exponent == 0) return sign * ldexpf(static_cast<float>(mantissa) / 8.0f, -6);
  return sign * ldexpf(1.0f + static_cast<float>(mantissa) / 8.0f, exponent - 7);
}

__global__ void dequantize(const uint8_t* q, const uint8_t* scale, float* out, size_t m, size_t k) {
  const size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= m * k) return;
  const size_t row = i / k, column = i % k;
  const uint8_t s = scale[row * (k / 32) + column / 32];
  out[i] = s == 0xFF ? __int_as_float(0x7fc00000) : ldexpf(e4m3_value(q[i]), static_cast<int>(s) - 127);
}

extern "C" void solution(const uint8_t* q, const uint8_t* scale, float* out, size_t m, size_t k) {
  const size_t n = m * k;
  const int threads = 256;
  dequantize<<<static_cast<unsigned>((n + threads - 1) / threads), threads>>>(q, scale, out, m, k);
}
