#include <cuda_runtime.h>

// output[i] = sum_j input[i + j - K/2] * kernel[j], zero outside the input
__global__ void conv1d_kernel(const float* input, const float* kernel, float* output, int N, int K) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= N) return;
    int r = K / 2;
    float acc = 0.0f;
    for (int j = 0; j < K; j++) {
        int idx = i + j - r;
        if (idx >= 0 && idx < N) acc += input[idx] * kernel[j];
    }
    output[i] = acc;
}

extern "C" void solve(const float* input, const float* kernel, float* output, int N, int K) {
    int threads = 256;
    int blocks = (N + threads - 1) / threads;
    conv1d_kernel<<<blocks, threads>>>(input, kernel, output, N, K);
    cudaDeviceSynchronize();
}
