// Control: an honest float32 softmax under the loose tolerance of cheat_constant_output. It
// passes, and the check warns that one constant would pass this case too, since the tolerance
// (float32's default atol 1e-4) is wider than the outputs (verify/input_dependence.hpp).
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

extern "C" void solve(const float* input, float* output, int rows, int cols) {
  if (rows > 0 && cols > 0) softmax_rows<<<rows, kThreads>>>(input, output, cols);
}
