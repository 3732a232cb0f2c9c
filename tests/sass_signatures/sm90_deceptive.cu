// Issue 58: kernels that try to pass a signature without its method (without_<id>__<what>,
// which must miss it) and other honest forms of a method (sig_<id>__<what>, which must match),
// compiled beside sm90.cu by signature_kernels_test.cpp for sm_90 and sm_100.

// A long straight-line body: 4 loads from 4 arrays and 8 FP operations, no loop at all.
extern "C" __global__ void without_unrolled_loop__straight_line(const float* a, const float* c, const float* d,
                                                               const float* e, float* b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float x = a[i], y = c[i], z = d[i], w = e[i];
    b[i] = (x * y + z) * (w - x) + (y * z - w) * (x + z) + x * w;
  }
}

// A compile-time trip count, unrolled completely: 8 loads off one base register, no loop.
extern "C" __global__ void sig_unrolled_loop__complete(const float* a, float* b) {
  float acc = 0;
#pragma unroll
  for (int k = 0; k < 8; ++k) acc += a[k * 32 + threadIdx.x];
  b[threadIdx.x] = acc;
}

// A run-time stride: nvcc computes each copy's address apart, all from the one parameter.
extern "C" __global__ void sig_unrolled_loop__runtime_stride(const float* a, float* b, int n, int s) {
  float acc = 0;
#pragma unroll 4
  for (int k = 0; k < n; ++k) acc += a[k * s + threadIdx.x];
  b[threadIdx.x] = acc;
}

// One row per thread (a run-time stride) with one coalesced load, the bias.
extern "C" __global__ void without_coalesced_loads__one_coalesced(const float* a, const float* x, const float* bias,
                                                                 float* y, int m, int k) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  float acc = bias[row];
  for (int kk = 0; kk < k; ++kk) acc += a[row * k + kk] * x[kk];
  y[row] = acc;
}

// A division per element with the fast intrinsic: MUFU.RCP and one FMUL each, no FCHK.
extern "C" __global__ void without_reciprocal_not_division__fdividef(const float* a, float* b, int n, float d) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    b[i] = __fdividef(a[i], d);
    b[i + n] = __fdividef(a[i + n], d + 1.0f);
  }
}

// No division at all, hence no reciprocal: a multiply alone is not the method.
extern "C" __global__ void without_reciprocal_not_division__no_division(const float* a, float* b, int n, float d) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) b[i] = a[i] * d;
}

// The reciprocal hoisted out of a loop nvcc keeps rolled: one FMUL, run every trip.
extern "C" __global__ void sig_reciprocal_not_division__hoisted(const float* a, float* b, int n, float d) {
  const float r = 1.0f / d;
#pragma unroll 1
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += 4096) b[i] = a[i] * r;
}
