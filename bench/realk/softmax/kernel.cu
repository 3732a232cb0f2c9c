#include <cuda_runtime.h>
#include <float.h>

#define THREADS 256

// One block per row: the max, then the sum of exponentials, then the outputs.
__global__ void softmax_kernel(const float* input, float* output, int rows, int cols) {
    __shared__ float buf[THREADS];
    int row = blockIdx.x;
    const float* x = input + (size_t)row * cols;
    float* y = output + (size_t)row * cols;

    float m = -FLT_MAX;
    for (int j = threadIdx.x; j < cols; j += blockDim.x) m = fmaxf(m, x[j]);
    buf[threadIdx.x] = m;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) buf[threadIdx.x] = fmaxf(buf[threadIdx.x], buf[threadIdx.x + s]);
        __syncthreads();
    }
    m = buf[0];
    __syncthreads();

    float sum = 0.0f;
    for (int j = threadIdx.x; j < cols; j += blockDim.x) sum += expf(x[j] - m);
    buf[threadIdx.x] = sum;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) buf[threadIdx.x] += buf[threadIdx.x + s];
        __syncthreads();
    }
    sum = buf[0];

    for (int j = threadIdx.x; j < cols; j += blockDim.x) y[j] = expf(x[j] - m) / sum;
}

extern "C" void solve(const float* input, float* output, int rows, int cols) {
    softmax_kernel<<<rows, THREADS>>>(input, output, rows, cols);
    cudaDeviceSynchronize();
}
