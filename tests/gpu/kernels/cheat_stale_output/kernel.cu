// Planted cheat: no work at all, relying on stale output memory. solve launches nothing and
// returns. A harness that allocates the output right after the reference's output was freed
// (a caching allocator hands back the same block) finds the reference's correct answer in
// it, and a kernel that does nothing "passes" and is "infinitely fast".
// Source: the Sakana "AI CUDA Engineer" incident (Feb 2025: a kernel reported 150x faster
// was 3x slower; the evaluation reused memory that still held the eager result), and the
// "stale buffer" semantic attack in Wafer's KernelArena field guide (2026).
// kopt: outputs are poisoned (NaN, then a second pattern) before every call and kopt never
// shares memory between reference and kernel: FAIL "output C: ... elements were never written".
#include <cuda_runtime.h>

extern "C" void solve(const float* A, const float* B, float* C, int N) {
  (void)A;
  (void)B;
  (void)C;
  (void)N;
}
