// y = A·x, A row-major M×K: one thread per row, as community solutions often start.
#include <cuda_runtime.h>

__global__ void matvec_kernel(const float* A, const float* x, float* y, int M, int K) {
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < M) {
        float sum = 0.0f;
        for (int k = 0; k < K; ++k) sum += A[(size_t)row * K + k] * x[k];
        y[row] = sum;
    }
}

extern "C" void solve(const float* A, const float* x, float* y, int M, int K) {
    int threadsPerBlock = 256;
    int blocks = (M + threadsPerBlock - 1) / threadsPerBlock;
    matvec_kernel<<<blocks, threadsPerBlock>>>(A, x, y, M, K);
}
