// 13_histogramming: a plain solution written against the challenge's starter signature. It
// zeroes the histogram itself: kopt starts it at zeros only where every test of the suite does.
#include <cuda_runtime.h>

__global__ void count_bins(const int* input, int* bins, int N) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N) atomicAdd(&bins[input[i]], 1);
}

extern "C" void solve(const int* input, int* histogram, int N, int num_bins) {
  cudaMemset(histogram, 0, sizeof(int) * num_bins);
  const int threads = 256;
  count_bins<<<(N + threads - 1) / threads, threads>>>(input, histogram, N);
  cudaDeviceSynchronize();
}
