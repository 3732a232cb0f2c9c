// Planted: a real data race. C = A + B is computed correctly, then a second kernel of many
// blocks does non-atomic read-modify-writes on C[0..7]: each block adds 1 and then
// subtracts 1, which would cancel if the updates were atomic. They are not: with ~4096
// resident blocks contending on 8 addresses, loads and stores of different blocks
// interleave and updates are lost at random, so C[0..7] drift by a different amount on
// every run. Caught by: the repeat run on the same inputs (outputs differ), and normally
// also by the comparison with the reference.
#include <cuda_runtime.h>

#define RACY_ELEMENTS 8
#define RACY_BLOCKS 8192
#define RACY_ROUNDS 16

__global__ void vector_add(const float* A, const float* B, float* C, int N) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N) C[i] = A[i] + B[i];
}

__global__ void racy_bump(float* C, int N) {
  const int j = blockIdx.x % RACY_ELEMENTS;
  if (threadIdx.x != 0 || j >= N) return;
  volatile float* p = C + j;  // volatile: every load and store really goes to memory
  for (int round = 0; round < RACY_ROUNDS; ++round) {
    float v = *p;
    *p = v + 1.0f;  // lost if another block stored between our load and this store
    v = *p;
    *p = v - 1.0f;
  }
}

extern "C" void solve(const float* A, const float* B, float* C, int N) {
  vector_add<<<(N + 255) / 256, 256>>>(A, B, C, N);
  racy_bump<<<RACY_BLOCKS, 32>>>(C, N);
}
