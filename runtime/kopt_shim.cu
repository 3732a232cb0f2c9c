// Linked into every kernel library kopt builds. A library built by nvcc carries its own
// static CUDA runtime, whose per-thread "last error" kopt's runtime cannot see; these
// functions read it from inside, so a launch that failed (bad configuration, too much
// shared memory) is reported as such instead of as an unwritten output.
#include <cuda_runtime.h>

extern "C" int kopt_shim_last_error() { return static_cast<int>(cudaGetLastError()); }

extern "C" const char* kopt_shim_error_string(int code) {
  return cudaGetErrorString(static_cast<cudaError_t>(code));
}
