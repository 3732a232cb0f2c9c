// Control: an honest float32 softmax under the loose tolerance of cheat_constant_output. It
// passes, and the check warns that one constant would pass this case too, since the tolerance
// (float32's default atol 1e-4) is wider than the outputs (verify/input_dependence.hpp).
#include "../softmax_rows.cuh"

extern "C" void solve(const float* input, float* output, int rows, int cols) {
  if (rows > 0 && cols > 0) softmax_rows<<<rows, kThreads>>>(input, output, cols);
}
