// Shared reference for the planted softmax kernels (cheat_constant_output,
// cheat_replayed_output, loose_softmax): output[r][c] = exp(x[r][c] - max_r) / sum_c exp(...),
// in double, one block per row, reduced in a fixed order: bitwise reproducible.
#include <cuda_runtime.h>

constexpr int kThreads = 256;

__global__ void softmax_ref(const float* input, float* output, int cols) {
  __shared__ double shared[kThreads];
  const float* row = input + (long long)blockIdx.x * cols;
  double largest = -1e300;
  for (int c = threadIdx.x; c < cols; c += kThreads) largest = fmax(largest, (double)row[c]);
  shared[threadIdx.x] = largest;
  __syncthreads();
  for (int half = kThreads / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) shared[threadIdx.x] = fmax(shared[threadIdx.x], shared[threadIdx.x + half]);
    __syncthreads();
  }
  largest = shared[0];
  __syncthreads();
  double sum = 0;
  for (int c = threadIdx.x; c < cols; c += kThreads) sum += exp((double)row[c] - largest);
  shared[threadIdx.x] = sum;
  __syncthreads();
  for (int half = kThreads / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) shared[threadIdx.x] += shared[threadIdx.x + half];
    __syncthreads();
  }
  sum = shared[0];
  for (int c = threadIdx.x; c < cols; c += kThreads)
    output[(long long)blockIdx.x * cols + c] = (float)(exp((double)row[c] - largest) / sum);
}

extern "C" void solve(const float* input, float* output, int rows, int cols) {
  if (rows > 0 && cols > 0) softmax_ref<<<rows, kThreads>>>(input, output, cols);
}
