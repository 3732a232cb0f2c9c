#include <cuda_runtime.h>

#define BLOCK_SIZE 256

// y = (x - mean) / sqrt(var + eps) per row; one block per row.
__global__ void layernorm_kernel(const float* x, float* y, int rows, int cols) {
    __shared__ float s_sum[BLOCK_SIZE];
    __shared__ float s_sq[BLOCK_SIZE];
    int row = blockIdx.x;
    const float* in = x + (size_t)row * cols;
    float* out = y + (size_t)row * cols;
    float sum = 0.0f, sq = 0.0f;
    for (int j = threadIdx.x; j < cols; j += BLOCK_SIZE) {
        float v = in[j];
        sum += v;
        sq += v * v;
    }
    s_sum[threadIdx.x] = sum;
    s_sq[threadIdx.x] = sq;
    __syncthreads();
    for (int s = BLOCK_SIZE / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) {
            s_sum[threadIdx.x] += s_sum[threadIdx.x + s];
            s_sq[threadIdx.x] += s_sq[threadIdx.x + s];
        }
        __syncthreads();
    }
    float mean = s_sum[0] / cols;
    float var = s_sq[0] / cols - mean * mean;
    float inv = rsqrtf(var + 1e-5f);
    for (int j = threadIdx.x; j < cols; j += BLOCK_SIZE) out[j] = (in[j] - mean) * inv;
}

extern "C" void solve(const float* x, float* y, int rows, int cols) {
    layernorm_kernel<<<rows, BLOCK_SIZE>>>(x, y, rows, cols);
    cudaDeviceSynchronize();
}
