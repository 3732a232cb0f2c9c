// kopt doctor --peaks: this device's ceilings, measured. Compiled by kopt with nvcc (linked
// against cuBLAS and cuBLASLt, which ship with the toolkit) and loaded into a worker. Each
// function returns 0 and a rate, or non-zero and a one-line reason in `error`.
//
// Every rate is the median of timed repetitions after warm-up, on the default stream, at
// whatever clocks the device runs at (kopt never locks them): the ceiling a kernel meets in
// a normal run.
#ifndef KOPT_PEAKS_NO_CUBLAS
#include <cublasLt.h>
#include <cublas_v2.h>
#endif
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <string_view>
#include <vector>

namespace {

constexpr int kWarmup = 5;
constexpr int kRepetitions = 20;

int fail(char* error, int length, const char* what, const char* detail) {
  std::snprintf(error, static_cast<size_t>(length), "%s: %s", what, detail);
  return 1;
}

#define KOPT_CUDA(call)                                                                    \
  do {                                                                                     \
    cudaError_t status_ = (call);                                                          \
    if (status_ != cudaSuccess) return fail(error, length, #call, cudaGetErrorString(status_)); \
  } while (0)

#ifndef KOPT_PEAKS_NO_CUBLAS
#define KOPT_CUBLAS(call)                                                                  \
  do {                                                                                     \
    cublasStatus_t status_ = (call);                                                       \
    if (status_ != CUBLAS_STATUS_SUCCESS) return fail(error, length, #call, cublasGetStatusString(status_)); \
  } while (0)
#endif

// Median seconds of `kRepetitions` runs of `body` bracketed by events; -1 when a call failed.
template <typename Body>
double median_seconds(Body body) {
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  for (int i = 0; i < kWarmup; ++i) body();
  std::vector<double> seconds;
  for (int i = 0; i < kRepetitions; ++i) {
    cudaEventRecord(start, nullptr);
    body();
    cudaEventRecord(stop, nullptr);
    cudaEventSynchronize(stop);
    float ms = 0;
    cudaEventElapsedTime(&ms, start, stop);
    seconds.push_back(ms * 1e-3);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  if (cudaGetLastError() != cudaSuccess) return -1;
  std::sort(seconds.begin(), seconds.end());
  return seconds[seconds.size() / 2];
}

__global__ void copy_kernel(const float4* __restrict__ in, float4* __restrict__ out, size_t n) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    out[i] = in[i];
  }
}

// Independent FMA chains per thread, so the pipe, not the dependency latency, limits the rate.
constexpr int kChains = 8;
constexpr int kFmaIterations = 4096;

__global__ void fma_kernel(float* out, float seed) {
  float acc[kChains];
#pragma unroll
  for (int c = 0; c < kChains; ++c) acc[c] = seed + c + threadIdx.x;
  const float b = 0.999f, c0 = 1e-3f;
  for (int i = 0; i < kFmaIterations; ++i) {
#pragma unroll
    for (int c = 0; c < kChains; ++c) acc[c] = fmaf(acc[c], b, c0);
  }
  float sum = 0;
#pragma unroll
  for (int c = 0; c < kChains; ++c) sum += acc[c];
  if (sum == -1.0f) out[0] = sum;  // never true; keeps the chains alive
}

}  // namespace

// DRAM: bytes read plus written per second by the better of a device-to-device cudaMemcpy
// and a vectorized copy kernel, over buffers far larger than the L2.
extern "C" int kopt_peak_dram(double* bytes_per_second, char* error, int length) {
  size_t free_bytes = 0, total_bytes = 0;
  KOPT_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
  const size_t bytes = std::min<size_t>(size_t(2) << 30, free_bytes / 4) & ~size_t(255);
  void *in = nullptr, *out = nullptr;
  KOPT_CUDA(cudaMalloc(&in, bytes));
  KOPT_CUDA(cudaMalloc(&out, bytes));
  KOPT_CUDA(cudaMemset(in, 1, bytes));
  int sms = 0;
  KOPT_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const double memcpy_s = median_seconds([&] { cudaMemcpyAsync(out, in, bytes, cudaMemcpyDeviceToDevice, nullptr); });
  const double kernel_s = median_seconds([&] {
    copy_kernel<<<sms * 8, 512>>>(static_cast<const float4*>(in), static_cast<float4*>(out), bytes / sizeof(float4));
  });
  cudaFree(in);
  cudaFree(out);
  if (memcpy_s <= 0 || kernel_s <= 0) return fail(error, length, "copy", "a timed copy failed");
  *bytes_per_second = 2.0 * static_cast<double>(bytes) / std::min(memcpy_s, kernel_s);
  return 0;
}

extern "C" int kopt_peak_fp32(double* flop_per_second, char* error, int length) {
  int sms = 0;
  KOPT_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  float* out = nullptr;
  KOPT_CUDA(cudaMalloc(&out, sizeof(float)));
  const int blocks = sms * 16, threads = 256;
  const double seconds = median_seconds([&] { fma_kernel<<<blocks, threads>>>(out, 1.0f); });
  cudaFree(out);
  if (seconds <= 0) return fail(error, length, "fma_kernel", "the timed kernel failed");
  *flop_per_second = 2.0 * kChains * kFmaIterations * double(blocks) * threads / seconds;
  return 0;
}

#ifndef KOPT_PEAKS_NO_CUBLAS
namespace {

struct GemmType {
  cudaDataType_t ab, cd, scale;
  cublasComputeType_t compute;
  size_t element_bytes;
};

bool gemm_type(const char* name, GemmType& type) {
  const std::string_view n(name);
  if (n == "fp16_tensor") type = {CUDA_R_16F, CUDA_R_16F, CUDA_R_32F, CUBLAS_COMPUTE_32F, 2};
  else if (n == "bf16_tensor") type = {CUDA_R_16BF, CUDA_R_16BF, CUDA_R_32F, CUBLAS_COMPUTE_32F, 2};
  else if (n == "tf32_tensor") type = {CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32, 4};
  else if (n == "fp8_tensor") type = {CUDA_R_8F_E4M3, CUDA_R_16BF, CUDA_R_32F, CUBLAS_COMPUTE_32F, 1};
  else return false;
  return true;
}

}  // namespace

// A dense square GEMM through cuBLASLt (FP8 is only reachable there), A transposed ("TN", the
// layout FP8 requires), with zeroed operands: the rate does not depend on the values.
extern "C" int kopt_peak_gemm(const char* name, int size, double* flop_per_second, char* error, int length) {
  GemmType type{};
  if (!gemm_type(name, type)) return fail(error, length, name, "unknown GEMM type");
  const size_t n = static_cast<size_t>(size);
  void *a = nullptr, *b = nullptr, *d = nullptr, *workspace = nullptr;
  const size_t workspace_bytes = size_t(64) << 20;
  KOPT_CUDA(cudaMalloc(&a, n * n * type.element_bytes));
  KOPT_CUDA(cudaMalloc(&b, n * n * type.element_bytes));
  KOPT_CUDA(cudaMalloc(&d, n * n * 4));
  KOPT_CUDA(cudaMalloc(&workspace, workspace_bytes));
  KOPT_CUDA(cudaMemset(a, 0, n * n * type.element_bytes));
  KOPT_CUDA(cudaMemset(b, 0, n * n * type.element_bytes));

  cublasLtHandle_t handle;
  KOPT_CUBLAS(cublasLtCreate(&handle));
  cublasLtMatmulDesc_t op;
  KOPT_CUBLAS(cublasLtMatmulDescCreate(&op, type.compute, type.scale));
  const cublasOperation_t transpose = CUBLAS_OP_T, none = CUBLAS_OP_N;
  KOPT_CUBLAS(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &transpose, sizeof transpose));
  KOPT_CUBLAS(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSB, &none, sizeof none));
  cublasLtMatrixLayout_t la, lb, lc;
  KOPT_CUBLAS(cublasLtMatrixLayoutCreate(&la, type.ab, n, n, n));
  KOPT_CUBLAS(cublasLtMatrixLayoutCreate(&lb, type.ab, n, n, n));
  KOPT_CUBLAS(cublasLtMatrixLayoutCreate(&lc, type.cd, n, n, n));
  cublasLtMatmulPreference_t preference;
  KOPT_CUBLAS(cublasLtMatmulPreferenceCreate(&preference));
  KOPT_CUBLAS(cublasLtMatmulPreferenceSetAttribute(preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                                   &workspace_bytes, sizeof workspace_bytes));
  cublasLtMatmulHeuristicResult_t heuristic{};
  int found = 0;
  KOPT_CUBLAS(cublasLtMatmulAlgoGetHeuristic(handle, op, la, lb, lc, lc, preference, 1, &heuristic, &found));
  if (found == 0) return fail(error, length, name, "cuBLASLt has no algorithm for this type on this device");
  const float alpha = 1, beta = 0;
  cublasStatus_t status = CUBLAS_STATUS_SUCCESS;
  const double seconds = median_seconds([&] {
    cublasStatus_t s = cublasLtMatmul(handle, op, &alpha, a, la, b, lb, &beta, d, lc, d, lc, &heuristic.algo,
                                      workspace, workspace_bytes, nullptr);
    if (s != CUBLAS_STATUS_SUCCESS) status = s;
  });
  cublasLtMatmulPreferenceDestroy(preference);
  cublasLtMatrixLayoutDestroy(la);
  cublasLtMatrixLayoutDestroy(lb);
  cublasLtMatrixLayoutDestroy(lc);
  cublasLtMatmulDescDestroy(op);
  cublasLtDestroy(handle);
  cudaFree(a);
  cudaFree(b);
  cudaFree(d);
  cudaFree(workspace);
  if (status != CUBLAS_STATUS_SUCCESS) return fail(error, length, "cublasLtMatmul", cublasGetStatusString(status));
  if (seconds <= 0) return fail(error, length, name, "the timed GEMM failed");
  *flop_per_second = 2.0 * double(n) * double(n) * double(n) / seconds;
  return 0;
}
#endif  // KOPT_PEAKS_NO_CUBLAS
