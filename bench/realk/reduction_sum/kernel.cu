#include <cuda_runtime.h>

#define BLOCK_SIZE 256

__global__ void reduce_sum(const float* input, float* output, int N) {
    __shared__ float sdata[BLOCK_SIZE];
    int tid = threadIdx.x;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    sdata[tid] = (i < N) ? input[i] : 0.0f;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) {
            sdata[tid] += sdata[tid + s];
        }
        __syncthreads();
    }
    if (tid == 0) atomicAdd(output, sdata[0]);
}

// input, output are device pointers
extern "C" void solve(const float* input, float* output, int N) {
    cudaMemset(output, 0, sizeof(float));
    int blocks = (N + BLOCK_SIZE - 1) / BLOCK_SIZE;
    reduce_sum<<<blocks, BLOCK_SIZE>>>(input, output, N);
    cudaDeviceSynchronize();
}
