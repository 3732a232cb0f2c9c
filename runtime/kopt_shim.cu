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

// Holds the default stream until the host sets *release (or `timeout_ns` passes), so that the
// start event, every launch of solve and the stop event are queued before the GPU reaches
// them: the events then time the GPU's work, not the host's launch path (nvbench's
// "blocking kernel"). *timed_out says whether the host was too late — a solve that waits for
// the device itself can never release it in time.
__global__ void kopt_shim_stream_blocker_kernel(const volatile int* release, unsigned long long timeout_ns,
                                                int* timed_out) {
  unsigned long long start_ns, now_ns;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start_ns));
  now_ns = start_ns;
  while (*release == 0 && now_ns - start_ns < timeout_ns) {
#if __CUDA_ARCH__ >= 700
    __nanosleep(1000);
#endif
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now_ns));
  }
  *timed_out = *release == 0 ? 1 : 0;
}

extern "C" int kopt_shim_block_stream(const volatile int* release, unsigned long long timeout_ns, int* timed_out) {
  kopt_shim_stream_blocker_kernel<<<1, 1>>>(release, timeout_ns, timed_out);
  return static_cast<int>(cudaGetLastError());
}
