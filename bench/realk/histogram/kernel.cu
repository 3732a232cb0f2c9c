#include <cuda_runtime.h>

#define NUM_BINS 256

// Each block counts its stride of the input into shared bins, then adds them to the global ones.
__global__ void histogram_kernel(const int* input, int* histogram, int N) {
    __shared__ int local[NUM_BINS];
    for (int b = threadIdx.x; b < NUM_BINS; b += blockDim.x) local[b] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < N; i += blockDim.x * gridDim.x) {
        atomicAdd(&local[input[i]], 1);
    }
    __syncthreads();
    for (int b = threadIdx.x; b < NUM_BINS; b += blockDim.x) atomicAdd(&histogram[b], local[b]);
}

extern "C" void solve(const int* input, int* histogram, int N) {
    cudaMemset(histogram, 0, NUM_BINS * sizeof(int));
    int threads = 256;
    int blocks = 1024;
    histogram_kernel<<<blocks, threads>>>(input, histogram, N);
    cudaDeviceSynchronize();
}
