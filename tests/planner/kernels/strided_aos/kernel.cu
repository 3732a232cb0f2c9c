// Planted bottleneck: strided access. Particles are stored as structures {x, y, z, w} and the
// kernel reads only x: a warp's 32 loads span 512 bytes, 16 sectors of which 4 bytes in 16
// are used (sector efficiency 0.25).
#include <cuda_runtime.h>

struct Particle {
  float x, y, z, w;
};

__global__ void scale_x(const float* particles, float* out, int N) {
  const long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i < N) out[i] = 2.0f * reinterpret_cast<const Particle*>(particles)[i].x + 1.0f;
}

extern "C" void solve(const float* particles, float* out, int N) {
  scale_x<<<(N + 255) / 256, 256>>>(particles, out, N);
}
