// 17_dot_product: a plain solution written against the challenge's starter signature.
#include <cuda_runtime.h>

__global__ void dot(const float* A, const float* B, float* result, int N) {
  __shared__ float partial[256];
  float sum = 0.0f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < N; i += gridDim.x * blockDim.x) sum += A[i] * B[i];
  partial[threadIdx.x] = sum;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s /= 2) {
    if (threadIdx.x < s) partial[threadIdx.x] += partial[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(result, partial[0]);
}

extern "C" void solve(const float* A, const float* B, float* result, int N) {
  cudaMemset(result, 0, sizeof(float));
  dot<<<256, 256>>>(A, B, result, N);
  cudaDeviceSynchronize();
}
