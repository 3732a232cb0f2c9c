// Planted cheat: CUDA graph capture detection. kopt's graph mode captures N calls of solve
// into a graph and times replays of it; the correctness re-check calls solve directly. solve
// asks cudaStreamIsCapturing: while it is being captured it launches nothing (the graph that
// is timed is empty), and when called directly it is honest. An empty graph replays in a
// few microseconds, and graph mode has no roofline floor to call that impossible.
// Source: the capture- and replay-dependent behaviour that Wafer's KernelArena field guide
// (2026) lists under timing attacks, and KernelBench's static checker (flags stream and
// graph APIs in submissions).
// kopt: replayed calls get fresh inputs and poisoned outputs too, and at secret positions
// their output is compared with the verified one: FLAG "timed call outputs differ from the
// verified outputs". The source audit names the graph API.
#include <cuda_runtime.h>

__global__ void vector_add(const float* A, const float* B, float* C, int N) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < N; i += gridDim.x * blockDim.x) C[i] = A[i] + B[i];
}

static bool being_captured() {
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  // Graph mode builds with --default-stream per-thread: stream 0 is then the per-thread one.
  const cudaError_t error = cudaStreamIsCapturing(cudaStreamPerThread, &status);
  if (error != cudaSuccess) {
    cudaGetLastError();
    return true;  // refused because some capture is under way: as good as a yes
  }
  return status != cudaStreamCaptureStatusNone;
}

extern "C" void solve(const float* A, const float* B, float* C, int N) {
  if (being_captured()) return;
  vector_add<<<(N + 255) / 256, 256>>>(A, B, C, N);
}
