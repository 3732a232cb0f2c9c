// mxfp4-dequantize, written for kopt's import check: two e2m1 elements a byte (the lower index
// in the low nibble; values 0, 0.5, 1, 1.5, 2, 3, 4, 6 and their negatives) times the block's
// e8m0 scale 2^(s - 127), 32 elements a block along k.
#include <cstddef>
#include <cstdint>
#include <cuda_runtime.h>

__device__ float e2m1_value(uint8_t nibble) {
  const float magnitudes[8] = {0.0f, 0.5f, 1.0f, 1.5f, 2.0f, 3.0f, 4.0f, 6.0f};
  const float magnitude = magnitudes[nibble & 0x7];
  return (nibble & 0x8) ? -magnitude : magnitude;
}

__global__ void dequantize(const uint8_t* q, const uint8_t* scale, float* out, size_t m, size_t k) {
  const size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= m * k) return;
  const size_t row = i / k, column = i % k;
  const uint8_t byte = q[i / 2];
  const uint8_t nibble = (i % 2 == 0) ? (byte & 0xF) : (byte >> 4);
  const uint8_t s = scale[row * (k / 32) + column / 32];
  out[i] = s == 0xFF ? __int_as_float(0x7fc00000) : ldexpf(e2m1_value(nibble), static_cast<int>(s) - 127);
}

extern "C" void solution(const uint8_t* q, const uint8_t* scale, float* out, size_t m, size_t k) {
  const size_t n = m * k;
  const int threads = 256;
  dequantize<<<static_cast<unsigned>((n + threads - 1) / threads), threads>>>(q, scale, out, m, k);
}
