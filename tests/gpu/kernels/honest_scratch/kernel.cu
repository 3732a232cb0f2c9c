// Control for the integrity tests: an honest reduction that keeps a scratch buffer in a static
// pointer, allocated with cudaMalloc on the first call and reused by every later call. That
// is ordinary, legitimate practice (it is not a result cache: nothing read from it survives a
// call), so `kopt bench` must raise no FLAG and the source audit must not name it.
// It also adds its block sums with float atomics, so its output is NOT bitwise reproducible
// (the order of the atomics varies): verifying timed calls must compare within the spec's
// tolerance, not bit for bit, or this honest kernel is flagged.
#include <cuda_runtime.h>

constexpr int kThreads = 256;
constexpr int kBlocks = 132 * 4;

__global__ void block_sums(const float* input, int n, float* partial) {
  __shared__ float shared[kThreads];
  float sum = 0;
  for (int i = blockIdx.x * kThreads + threadIdx.x; i < n; i += kBlocks * kThreads) sum += input[i];
  shared[threadIdx.x] = sum;
  __syncthreads();
  for (int half = kThreads / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) shared[threadIdx.x] += shared[threadIdx.x + half];
    __syncthreads();
  }
  if (threadIdx.x == 0) partial[blockIdx.x] = shared[0];
}

// One thread per partial; the atomics land in whatever order the warps reach them.
__global__ void add_partials(const float* partial, float* output) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < kBlocks) atomicAdd(output, partial[i]);
}

extern "C" void solve(const float* input, float* output, int N) {
  static float* partial = [] {
    float* p = nullptr;
    cudaMalloc(&p, kBlocks * sizeof(float));
    return p;
  }();
  block_sums<<<kBlocks, kThreads>>>(input, N, partial);
  cudaMemsetAsync(output, 0, sizeof(float), 0);
  add_partials<<<(kBlocks + 255) / 256, 256>>>(partial, output);
}
