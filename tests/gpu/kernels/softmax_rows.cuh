// The honest float32 row softmax shared by loose_softmax (the control) and cheat_replayed_output
// (which computes it once, then replays it): one block of kThreads per row, max, sum of
// exponentials, normalized output.
#pragma once
#include <cuda_runtime.h>

constexpr int kThreads = 256;

__global__ void softmax_rows(const float* input, float* output, int cols) {
  __shared__ float shared[kThreads];
  const float* row = input + (long long)blockIdx.x * cols;
  float largest = -3.0e38f;
  for (int c = threadIdx.x; c < cols; c += kThreads) largest = fmaxf(largest, row[c]);
  shared[threadIdx.x] = largest;
  __syncthreads();
  for (int half = kThreads / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) shared[threadIdx.x] = fmaxf(shared[threadIdx.x], shared[threadIdx.x + half]);
    __syncthreads();
  }
  largest = shared[0];
  __syncthreads();
  float sum = 0;
  for (int c = threadIdx.x; c < cols; c += kThreads) sum += expf(row[c] - largest);
  shared[threadIdx.x] = sum;
  __syncthreads();
  for (int half = kThreads / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) shared[threadIdx.x] += shared[threadIdx.x + half];
    __syncthreads();
  }
  sum = shared[0];
  for (int c = threadIdx.x; c < cols; c += kThreads)
    output[(long long)blockIdx.x * cols + c] = expf(row[c] - largest) / sum;
}
