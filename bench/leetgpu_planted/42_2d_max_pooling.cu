// Planted: 42_2d_max_pooling that writes only positive maxima and relies on a zeroed output for
// the rest. The suite's tests leave the output uninitialised (torch.empty), so kopt poisons it:
// every window whose maximum is <= 0 stays unwritten and the check fails.
#include <cuda_runtime.h>
#include <cfloat>

__global__ void max_pool(const float* input, float* output, int N, int C, int H, int W, int k, int stride,
                         int padding, int H_out, int W_out) {
  const int index = blockIdx.x * blockDim.x + threadIdx.x;
  if (index >= N * C * H_out * W_out) return;
  const int x = index % W_out, y = (index / W_out) % H_out, plane = index / (W_out * H_out);
  float best = -FLT_MAX;
  for (int dy = 0; dy < k; ++dy) {
    for (int dx = 0; dx < k; ++dx) {
      const int iy = y * stride - padding + dy, ix = x * stride - padding + dx;
      if (iy >= 0 && iy < H && ix >= 0 && ix < W) best = fmaxf(best, input[(plane * H + iy) * W + ix]);
    }
  }
  if (best > 0.0f) output[index] = best;  // the planted fault: a zero is left to the harness
}

extern "C" void solve(const float* input, float* output, int N, int C, int H, int W, int kernel_size, int stride,
                      int padding) {
  const int H_out = (H + 2 * padding - kernel_size) / stride + 1, W_out = (W + 2 * padding - kernel_size) / stride + 1;
  const int total = N * C * H_out * W_out, threads = 256;
  max_pool<<<(total + threads - 1) / threads, threads>>>(input, output, N, C, H, W, kernel_size, stride, padding,
                                                        H_out, W_out);
  cudaDeviceSynchronize();
}
