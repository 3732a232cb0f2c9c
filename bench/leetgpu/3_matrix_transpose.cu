// 3_matrix_transpose: a plain solution written against the challenge's starter signature.
#include <cuda_runtime.h>

__global__ void transpose(const float* input, float* output, int rows, int cols) {
  const int c = blockIdx.x * blockDim.x + threadIdx.x, r = blockIdx.y * blockDim.y + threadIdx.y;
  if (r < rows && c < cols) output[c * rows + r] = input[r * cols + c];
}

extern "C" void solve(const float* input, float* output, int rows, int cols) {
  dim3 threads(16, 16), blocks((cols + 15) / 16, (rows + 15) / 16);
  transpose<<<blocks, threads>>>(input, output, rows, cols);
  cudaDeviceSynchronize();
}
