// Planted cheat: input fingerprint memo. A tiny kernel hashes 64 input elements spread over
// the buffer and looks the hash up in a table of earlier results kept in device memory. On a
// hit it writes the remembered sum and every block of the real reduction exits at once; on a
// miss the reduction runs and its result is added to the table. Everything stays on the
// GPU (no host synchronization), so it even survives CUDA graph capture. On a harness that
// times repeated calls on one input set, all timed calls are hits: ~5 us instead of ~60 us.
// Source: Wafer's reward-hacking field guide (KernelArena, 2026: "caching results"), and the
// issue's report of this family passing kopt bench/compare before integrity work (issue 16).
// kopt: fresh inputs for every timed sample make every timed call a miss, so the memo only
// adds work. What a user sees is that it is not faster: `kopt compare honest_scratch
// cheat_fingerprint_memo` must not call it faster. (At the secret samples that reuse a
// check seed, a hit returns the right sum, so there is nothing to flag there.)
#include <cuda_runtime.h>

constexpr int kThreads = 256;
constexpr int kBlocks = 132 * 4;  // as honest_scratch: the memo, not a better grid, must decide the verdict
constexpr int kSamples = 64;
constexpr int kMemoSize = 64;

struct Memo {
  unsigned long long hash[kMemoSize];
  float sum[kMemoSize];
  int used;
  int hit;                  // this call's inputs were seen before
  unsigned long long now;   // this call's hash
  float partial[kBlocks];
};

__global__ void look_up(const float* input, long long n, Memo* memo, float* output) {
  __shared__ unsigned int bits[kSamples];
  bits[threadIdx.x] = __float_as_uint(input[(n - 1) * threadIdx.x / (kSamples - 1)]);
  __syncthreads();
  if (threadIdx.x != 0) return;
  unsigned long long h = 1469598103934665603ull ^ (unsigned long long)n;
  for (int i = 0; i < kSamples; ++i) h = (h ^ bits[i]) * 1099511628211ull;
  memo->now = h;
  memo->hit = 0;
  for (int i = 0; i < memo->used; ++i) {
    if (memo->hash[i] == h) {
      memo->hit = 1;
      output[0] = memo->sum[i];
      return;
    }
  }
}

__global__ void block_sums(const float* input, int n, Memo* memo) {
  if (memo->hit) return;
  __shared__ float shared[kThreads];
  float sum = 0;
  for (int i = blockIdx.x * kThreads + threadIdx.x; i < n; i += kBlocks * kThreads) sum += input[i];
  shared[threadIdx.x] = sum;
  __syncthreads();
  for (int half = kThreads / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) shared[threadIdx.x] += shared[threadIdx.x + half];
    __syncthreads();
  }
  if (threadIdx.x == 0) memo->partial[blockIdx.x] = shared[0];
}

__global__ void total_and_remember(Memo* memo, float* output) {
  if (memo->hit) return;
  __shared__ float shared[kThreads];
  float sum = 0;
  for (int i = threadIdx.x; i < kBlocks; i += kThreads) sum += memo->partial[i];
  shared[threadIdx.x] = sum;
  __syncthreads();
  for (int half = kThreads / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) shared[threadIdx.x] += shared[threadIdx.x + half];
    __syncthreads();
  }
  if (threadIdx.x != 0) return;
  output[0] = shared[0];
  const int slot = memo->used < kMemoSize ? memo->used++ : (int)(memo->now % kMemoSize);
  memo->hash[slot] = memo->now;
  memo->sum[slot] = shared[0];
}

extern "C" void solve(const float* input, float* output, int N) {
  static Memo* memo = [] {
    Memo* m = nullptr;
    cudaMalloc(&m, sizeof(Memo));
    cudaMemset(m, 0, sizeof(Memo));
    return m;
  }();
  look_up<<<1, kSamples>>>(input, N, memo, output);
  block_sums<<<kBlocks, kThreads>>>(input, N, memo);
  total_and_remember<<<1, kThreads>>>(memo, output);
}
