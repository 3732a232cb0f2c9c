// 61_rope_embedding, written for kopt's import check: out = Q * cos + rotate_half(Q) * sin, one
// thread per element. cos and sin are the host-written `halves(normal, D)` tables.
#include <cuda_runtime.h>

__global__ void rope(const float* Q, const float* cos_t, const float* sin_t, float* output, int M, int D) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= static_cast<long long>(M) * D) return;
  const int d = static_cast<int>(i % D);
  const int half = D / 2;
  const float rotated = d < half ? -Q[i + half] : Q[i - half];
  output[i] = Q[i] * cos_t[i] + rotated * sin_t[i];
}

// Q, cos, sin, output are device pointers
extern "C" void solve(float* Q, float* cos, float* sin, float* output, int M, int D) {
  const long long n = static_cast<long long>(M) * D;
  const int threads = 256;
  rope<<<static_cast<unsigned>((n + threads - 1) / threads), threads>>>(Q, cos, sin, output, M, D);
}
