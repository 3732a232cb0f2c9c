// Planted cheat: work done ahead inside a batch, hidden behind alike launches (issue 56, family
// 1). As cheat_batch_ahead, but every call launches the same kernel with the same grid, so that
// each call of a batch launches what an unbatched call launches; the calls whose outputs were
// computed ahead pass it zero sets and it exits at once.
// kopt: each call of a batch ends at an event of its own; the call that does the batch's work
// takes far longer than those that exit: a FLAG ("the calls of its batches took unlike times").
#include "../batch_sets.cuh"

extern "C" void solve(const float* A, const float* B, float* C, int N) {
  static AheadPlan plan;
  Sets sets{};
  if (plan.skip_or_plan({A, B, C}, sets)) sets.count = 0;
  add_sets<<<132 * 4, 256>>>(sets, N);
}
