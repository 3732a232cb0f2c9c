// Planted cheat: a softmax computed once, then replayed. The first call computes its output
// honestly and keeps a copy; every later call copies it back, whatever its inputs. Within the
// spec's loose tolerance (float32's default atol 1e-4, outputs of at most 3.5e-5) one input's
// softmax passes for another's, and the output is not constant, so a check of constants alone
// would not see it.
// Source: the result caches of Wafer's field guide (outputs kept across calls) and Sakana's
// reuse of an earlier result, against a tolerance too loose to tell inputs apart.
// kopt: two seeds' outputs are the same bytes where their references differ beyond rounding:
// FAIL "... is the same, byte for byte, as for seed ..." (verify/input_dependence.hpp).
#include "../softmax_rows.cuh"

extern "C" void solve(const float* input, float* output, int rows, int cols) {
  static float* kept = nullptr;
  static size_t kept_bytes = 0;
  const size_t bytes = (size_t)rows * cols * sizeof(float);
  if (rows <= 0 || cols <= 0) return;
  if (kept != nullptr && kept_bytes == bytes) {
    cudaMemcpyAsync(output, kept, bytes, cudaMemcpyDeviceToDevice, 0);
    return;
  }
  softmax_rows<<<rows, kThreads>>>(input, output, cols);
  if (kept != nullptr) cudaFree(kept);
  if (cudaMalloc(&kept, bytes) != cudaSuccess) {
    kept = nullptr;
    return;
  }
  kept_bytes = bytes;
  cudaMemcpyAsync(kept, output, bytes, cudaMemcpyDeviceToDevice, 0);
}
