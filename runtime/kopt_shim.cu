// Linked into every kernel library kopt builds. A library built by nvcc carries its own
// static CUDA runtime, whose per-thread "last error" kopt's runtime cannot see; these
// functions read it from inside, so a launch that failed (bad configuration, too much
// shared memory) is reported as such instead of as an unwritten output.
#include <cuda_runtime.h>

extern "C" int kopt_shim_last_error() { return static_cast<int>(cudaGetLastError()); }

extern "C" const char* kopt_shim_error_string(int code) {
  return cudaGetErrorString(static_cast<cudaError_t>(code));
}

// The SM clock, measured rather than assumed: spin for `cycles` SM cycles and time them on the
// global nanosecond timer. out[0] = cycles elapsed, out[1] = nanoseconds elapsed. Launched on
// the default stream right after a timed call, it tells whether that sample ran throttled.
__global__ void kopt_shim_clock_probe_kernel(unsigned long long* out, long long cycles) {
  unsigned long long start_ns, end_ns;
  const long long start = clock64();
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start_ns));
  long long now = start;
  while (now - start < cycles) now = clock64();
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(end_ns));
  out[0] = static_cast<unsigned long long>(now - start);
  out[1] = end_ns - start_ns;
}

extern "C" int kopt_shim_clock_probe(unsigned long long* device_out, long long cycles) {
  kopt_shim_clock_probe_kernel<<<1, 1>>>(device_out, cycles);
  return static_cast<int>(cudaGetLastError());
}
