// Row-wise softmax of a row-major [rows x cols] fp32 matrix, numerically stable:
//   output[r][c] = exp(input[r][c] - max_r) / sum_c' exp(input[r][c'] - max_r)
// One block per row; the block's threads stride over the row three times (max, sum of
// exponentials, normalize), combining per-thread partials with a shared-memory tree.
#include <cuda_runtime.h>

#ifndef THREADS
#define THREADS 256   // kopt:param THREADS in {128,256,512,1024}
#endif

// Reduces one value per thread to one per block with `op`; every thread gets the result.
template <typename Op>
__device__ float block_reduce(float value, float* scratch, Op op) {
  const int tid = threadIdx.x;
  scratch[tid] = value;
  __syncthreads();
  for (int stride = THREADS / 2; stride > 0; stride >>= 1) {
    if (tid < stride) scratch[tid] = op(scratch[tid], scratch[tid + stride]);
    __syncthreads();
  }
  const float result = scratch[0];
  __syncthreads();  // scratch is reused by the next reduction
  return result;
}

struct MaxOp {
  __device__ float operator()(float a, float b) const { return fmaxf(a, b); }
};
struct SumOp {
  __device__ float operator()(float a, float b) const { return a + b; }
};

__global__ void softmax_kernel(const float* input, float* output, int rows, int cols) {
  __shared__ float scratch[THREADS];
  const int row = blockIdx.x;
  if (row >= rows) return;  // uniform per block: no thread of it reaches a __syncthreads
  const float* in = input + (size_t)row * cols;
  float* out = output + (size_t)row * cols;

  float local_max = -INFINITY;
  for (int c = threadIdx.x; c < cols; c += THREADS) local_max = fmaxf(local_max, in[c]);
  const float row_max = block_reduce(local_max, scratch, MaxOp());

  float local_sum = 0.0f;
  for (int c = threadIdx.x; c < cols; c += THREADS) local_sum += expf(in[c] - row_max);
  const float row_sum = block_reduce(local_sum, scratch, SumOp());

  for (int c = threadIdx.x; c < cols; c += THREADS) out[c] = expf(in[c] - row_max) / row_sum;
}

extern "C" void solve(const float* input, float* output, int rows, int cols) {
  if (rows <= 0 || cols <= 0) return;
  softmax_kernel<<<rows, THREADS>>>(input, output, rows, cols);
}
