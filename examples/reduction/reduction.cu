// Sum of N floats into output[0].
// Each block of THREADS threads loads THREADS elements, reduces them in shared memory with
// a tree (stride halving), and thread 0 adds the block's sum to output[0] with one atomicAdd.
//
// Nondeterminism: blocks reach the atomicAdd in no fixed order and fp32 addition is not
// associative, so the low bits of the result can differ from run to run on the same input
// (by ~1e-1 at most for N = 2^26, well inside the spec's tolerance; see kopt.toml).
#include <cuda_runtime.h>

#ifndef THREADS
#define THREADS 256   // kopt:param THREADS in {128,256,512,1024}
#endif

__global__ void reduce_sum_kernel(const float* input, float* output, int N) {
  __shared__ float partial[THREADS];
  const int tid = threadIdx.x;
  const long long i = blockIdx.x * (long long)THREADS + tid;
  partial[tid] = i < N ? input[i] : 0.0f;
  __syncthreads();
  for (int stride = THREADS / 2; stride > 0; stride >>= 1) {
    if (tid < stride) partial[tid] += partial[tid + stride];
    __syncthreads();
  }
  if (tid == 0) atomicAdd(output, partial[0]);
}

extern "C" void solve(const float* input, float* output, int N) {
  // kopt poisons outputs before each run: the sum must start from zero. Same (default)
  // stream as the kernel, so ordered before it.
  cudaMemsetAsync(output, 0, sizeof(float), 0);
  if (N <= 0) return;
  const int blocks = (N + THREADS - 1) / THREADS;
  reduce_sum_kernel<<<blocks, THREADS>>>(input, output, N);
}
