// 21_relu: a plain solution written against the challenge's starter signature.
#include <cuda_runtime.h>

__global__ void relu(const float* input, float* output, int N) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N) output[i] = fmaxf(input[i], 0.0f);
}

extern "C" void solve(const float* input, float* output, int N) {
  const int threads = 256;
  relu<<<(N + threads - 1) / threads, threads>>>(input, output, N);
  cudaDeviceSynchronize();
}
