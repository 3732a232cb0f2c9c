// Shared reference for the planted reduction cheats: output[0] = sum of input[0..N), summed in
// double in a fixed order (per-block partials, then one block over the partials), so it is
// exact to float rounding and bitwise reproducible.
#include <cuda_runtime.h>

constexpr int kBlocks = 1024;
constexpr int kThreads = 256;

__global__ void partial_sums_ref(const float* input, long long n, double* partial) {
  __shared__ double shared[kThreads];
  double sum = 0;
  for (long long i = blockIdx.x * (long long)kThreads + threadIdx.x; i < n; i += (long long)kBlocks * kThreads)
    sum += input[i];
  shared[threadIdx.x] = sum;
  __syncthreads();
  for (int half = kThreads / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) shared[threadIdx.x] += shared[threadIdx.x + half];
    __syncthreads();
  }
  if (threadIdx.x == 0) partial[blockIdx.x] = shared[0];
}

__global__ void total_ref(const double* partial, float* output) {
  __shared__ double shared[kThreads];
  double sum = 0;
  for (int i = threadIdx.x; i < kBlocks; i += kThreads) sum += partial[i];
  shared[threadIdx.x] = sum;
  __syncthreads();
  for (int half = kThreads / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) shared[threadIdx.x] += shared[threadIdx.x + half];
    __syncthreads();
  }
  if (threadIdx.x == 0) output[0] = (float)shared[0];
}

extern "C" void solve(const float* input, float* output, int N) {
  static double* partial = [] {
    double* p = nullptr;
    cudaMalloc(&p, kBlocks * sizeof(double));
    return p;
  }();
  partial_sums_ref<<<kBlocks, kThreads>>>(input, N, partial);
  total_ref<<<1, kThreads>>>(partial, output);
}
