// Planted: 1_vector_add four elements at a time, with no tail. It passes a performance size that
// is a multiple of 4 and fails the suite's N=1 and N=30 tests (constant fills kopt now keeps).
#include <cuda_runtime.h>

__global__ void vector_add4(const float4* A, const float4* B, float4* C, int quads) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < quads) C[i] = make_float4(A[i].x + B[i].x, A[i].y + B[i].y, A[i].z + B[i].z, A[i].w + B[i].w);
}

extern "C" void solve(const float* A, const float* B, float* C, int N) {
  const int quads = N / 4, threads = 256;  // the edge: N % 4 elements never written
  if (quads > 0) {
    vector_add4<<<(quads + threads - 1) / threads, threads>>>(reinterpret_cast<const float4*>(A),
                                                            reinterpret_cast<const float4*>(B),
                                                            reinterpret_cast<float4*>(C), quads);
  }
  cudaDeviceSynchronize();
}
