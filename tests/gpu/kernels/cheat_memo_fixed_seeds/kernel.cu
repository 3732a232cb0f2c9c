// Planted cheat: answers memorised for fixed seeds, across processes. kopt used to generate
// inputs from seeds 1, 2, 3 (and bench from seed 1), the same in every invocation. This
// reduction keeps a table in /tmp (one line per input set: a fingerprint of 16 elements and
// the sum); on a hit it writes the remembered sum without reading the input, on a miss it
// computes the sum and appends it. After one `kopt check`, every later check and every timed
// call of every later bench is a hit: a 4-byte write instead of a 256 MiB read.
// Source: the Sakana "AI CUDA Engineer" incident (Feb 2025: kernels that wrote constants
// that happened to match the benchmark's single fixed input), METR's June 2025 report
// (precomputed answers), and the precomputed-output submissions that LeetGPU/Tensara-style
// leaderboards with fixed test inputs invite.
// kopt: seeds are secret and random per invocation and every timed sample gets fresh inputs,
// so the table never hits: `kopt compare honest_scratch cheat_memo_fixed_seeds` must not call
// it faster; `--strict` fails it on the source audit (file access).
#include <cuda_runtime.h>

#include <cstdio>

constexpr int kThreads = 256;
constexpr int kBlocks = 1024;
constexpr int kSamples = 16;

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

__global__ void total(const float* partial, float* output) {
  __shared__ float shared[kThreads];
  float sum = 0;
  for (int i = threadIdx.x; i < kBlocks; i += kThreads) sum += partial[i];
  shared[threadIdx.x] = sum;
  __syncthreads();
  for (int half = kThreads / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) shared[threadIdx.x] += shared[threadIdx.x + half];
    __syncthreads();
  }
  if (threadIdx.x == 0) output[0] = shared[0];
}

__global__ void write_value(float* output, float value) { output[0] = value; }

// The fingerprint is read on a stream of our own, which kopt's stream blocker does not hold.
static unsigned long long fingerprint(const float* input, long long n, cudaStream_t stream) {
  static float* host = [] {
    float* h = nullptr;
    cudaMallocHost(&h, kSamples * sizeof(float));
    return h;
  }();
  for (int i = 0; i < kSamples; ++i) {
    cudaMemcpyAsync(host + i, input + (n - 1) * i / (kSamples - 1), sizeof(float), cudaMemcpyDeviceToHost, stream);
  }
  cudaStreamSynchronize(stream);
  unsigned long long h = 1469598103934665603ull ^ (unsigned long long)n;
  for (int i = 0; i < kSamples; ++i) {
    unsigned int bits;
    __builtin_memcpy(&bits, host + i, sizeof bits);
    h = (h ^ bits) * 1099511628211ull;
  }
  return h;
}

static bool recall(unsigned long long key, float& sum) {
  FILE* f = std::fopen("/tmp/kopt-cheat-memo-fixed-seeds.txt", "r");
  if (f == nullptr) return false;
  unsigned long long k;
  float s;
  bool found = false;
  while (!found && std::fscanf(f, "%llx %a", &k, &s) == 2) found = k == key;
  std::fclose(f);
  if (found) sum = s;
  return found;
}

static void remember(unsigned long long key, float sum) {
  if (FILE* f = std::fopen("/tmp/kopt-cheat-memo-fixed-seeds.txt", "a")) {
    std::fprintf(f, "%llx %a\n", key, sum);
    std::fclose(f);
  }
}

extern "C" void solve(const float* input, float* output, int N) {
  static cudaStream_t side = [] {
    cudaStream_t s;
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    return s;
  }();
  static float* partial = [] {
    float* p = nullptr;
    cudaMalloc(&p, kBlocks * sizeof(float));
    return p;
  }();
  const unsigned long long key = fingerprint(input, N, side);
  float sum;
  if (recall(key, sum)) {
    write_value<<<1, 1>>>(output, sum);
    return;
  }
  block_sums<<<kBlocks, kThreads>>>(input, N, partial);
  total<<<1, kThreads>>>(partial, output);
  cudaMemcpy(&sum, output, sizeof(float), cudaMemcpyDeviceToHost);  // waits for the sum
  remember(key, sum);
}
