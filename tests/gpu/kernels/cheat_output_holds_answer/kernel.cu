// Planted cheat: the output already holds the answer. Before doing any work, a probe kernel
// checks 1024 positions spread over C: if C[i] == A[i] + B[i] at all of them, the output is
// taken to be the answer from an earlier call and every block of the real add exits at once.
// On a harness that poisons C only before the checked calls and times repeated calls on one
// input set, every timed call after the first skips the work (~5 us instead of ~90 us), and
// the check (poisoned output) always sees an honest, correct run.
// Source: the Sakana "AI CUDA Engineer" incident (Feb 2025: kernels that passed because the
// output memory still held an earlier correct result), and issue 16's list of families that
// passed kopt before (the output buffer already holding the answer).
// kopt: outputs are freshly poisoned before every timed sample, so the probe never matches and
// the cheat only adds a probe: `kopt compare honest_add cheat_output_holds_answer` must not
// call it faster.
#include <cuda_runtime.h>

constexpr int kProbes = 1024;

__global__ void probe(const float* A, const float* B, const float* C, long long n, int* differs) {
  const long long i = (n - 1) * (long long)threadIdx.x / (kProbes - 1);
  if (C[i] != A[i] + B[i]) *differs = 1;
}

__global__ void vector_add_unless_done(const float* A, const float* B, float* C, int N, const int* differs) {
  if (*differs == 0) return;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < N; i += gridDim.x * blockDim.x) C[i] = A[i] + B[i];
}

extern "C" void solve(const float* A, const float* B, float* C, int N) {
  static int* differs = [] {
    int* p = nullptr;
    cudaMalloc(&p, sizeof(int));
    return p;
  }();
  cudaMemsetAsync(differs, 0, sizeof(int), 0);
  probe<<<1, kProbes>>>(A, B, C, N, differs);
  vector_add_unless_done<<<132 * 8, 256>>>(A, B, C, N, differs);
}
