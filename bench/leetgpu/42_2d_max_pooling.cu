#include <cuda_runtime.h>
#include <cfloat>

// One thread per output element; padding counts as -inf, as torch's max_pool2d does.
__global__ void max_pool2d(const float* input, float* output, int planes, int H, int W, int H_out, int W_out,
                           int k, int stride, int padding) {
  const long long total = static_cast<long long>(planes) * H_out * W_out;
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= total) return;
  const int ow = static_cast<int>(i % W_out);
  const int oh = static_cast<int>((i / W_out) % H_out);
  const long long plane = i / (static_cast<long long>(W_out) * H_out);
  const float* in = input + plane * H * W;
  float best = -FLT_MAX;
  for (int dy = 0; dy < k; ++dy) {
    const int y = oh * stride - padding + dy;
    if (y < 0 || y >= H) continue;
    for (int dx = 0; dx < k; ++dx) {
      const int x = ow * stride - padding + dx;
      if (x >= 0 && x < W) best = fmaxf(best, in[y * W + x]);
    }
  }
  output[i] = best;
}

extern "C" void solve(const float* input, float* output, int N, int C, int H, int W, int kernel_size, int stride,
                      int padding) {
  const int H_out = (H + 2 * padding - kernel_size) / stride + 1;
  const int W_out = (W + 2 * padding - kernel_size) / stride + 1;
  const long long total = static_cast<long long>(N) * C * H_out * W_out;
  const int threads = 256;
  max_pool2d<<<static_cast<unsigned>((total + threads - 1) / threads), threads>>>(
      input, output, N * C, H, W, H_out, W_out, kernel_size, stride, padding);
}
