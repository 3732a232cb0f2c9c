// 19_reverse_array: a plain solution written against the challenge's starter signature (in place).
#include <cuda_runtime.h>

__global__ void reverse(float* input, int N) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N / 2) {
    const float t = input[i];
    input[i] = input[N - 1 - i];
    input[N - 1 - i] = t;
  }
}

extern "C" void solve(float* input, int N) {
  const int threads = 256;
  reverse<<<(N / 2 + threads - 1) / threads + 1, threads>>>(input, N);
  cudaDeviceSynchronize();
}
