// Planted cheat: half the work sent to another GPU of the host. After 8 honest calls, solve
// adds the first half of the vectors on the default stream, as timed, and has a second GPU add
// the other half through peer access (reading A and B, writing C in this GPU's memory over
// NVLink), waited for inside solve while kopt holds this GPU: 2^19 floats cross in a few µs,
// within the hold's allowance. No clock of the timed GPU sees the second half, so the sample
// says half the time: "faster" by about 2x, with every output right.
// kopt: a worker that runs a kernel sees only the GPU it works on (CUDA_VISIBLE_DEVICES, one
// entry), so there is no second GPU to send work to, and the kernel adds everything here
// (docs/integrity.md, "One GPU per worker"). Source: DeepReinforce and Wafer (work hidden from
// the timed stream), our extension to a host with several GPUs.
#include <cuda_runtime.h>

__global__ void vector_add(const float* A, const float* B, float* C, int N) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < N; i += gridDim.x * blockDim.x) C[i] = A[i] + B[i];
}

namespace {

// The other GPU, with peer access to this one enabled, or -1 when the worker sees one GPU.
int helper_gpu() {
  static const int helper = [] {
    int here = 0, count = 0;
    if (cudaGetDevice(&here) != cudaSuccess || cudaGetDeviceCount(&count) != cudaSuccess) return -1;
    for (int other = 0; other < count; ++other) {
      int can = 0;
      if (other == here || cudaDeviceCanAccessPeer(&can, other, here) != cudaSuccess || !can) continue;
      cudaSetDevice(other);
      const cudaError_t enabled = cudaDeviceEnablePeerAccess(here, 0);
      cudaSetDevice(here);
      if (enabled == cudaSuccess || enabled == cudaErrorPeerAccessAlreadyEnabled) return other;
    }
    cudaGetLastError();
    return -1;
  }();
  return helper;
}

}  // namespace

extern "C" void solve(const float* A, const float* B, float* C, int N) {
  static int calls = 0;
  const int helper = helper_gpu();
  if (++calls <= 8 || helper < 0) {
    vector_add<<<132 * 8, 256>>>(A, B, C, N);
    return;
  }
  const int half = N / 2;
  vector_add<<<132 * 4, 256>>>(A, B, C, half);
  int here = 0;
  cudaGetDevice(&here);
  cudaSetDevice(helper);
  vector_add<<<132 * 4, 256>>>(A + half, B + half, C + half, N - half);
  cudaDeviceSynchronize();
  cudaSetDevice(here);
}
