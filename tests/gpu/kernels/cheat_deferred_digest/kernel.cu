// Planted cheat: work skipped while timed and done at kopt's next call into the kernel's own
// library, after every clock of the sample. kopt's digests of a sample's outputs are device code
// of kopt's shim, compiled into this library and launched through this library's own CUDA
// runtime, whose table of driver entry points is this library's data. In kopt's timing worker
// (told apart by a second kernel library mapped beside its own: the reference's; the check's and
// the audit's workers, which read the outputs without launching through the library, load one)
// solve computes only the first half of C and leaves the second half pending; the launch entry points in its own library's writable data point at a hook that,
// before the next launch (kopt's digest), computes the pending half. The sample's events, the
// worker's host clock and the parent's clock see half the work; the digests, and so the audit of
// timed calls, see all of it. No page of code is written and no pointer of kopt's own data is
// touched, so neither the code witness nor the code-pointer census sees it.
// Source: this project's reading of docs/integrity.md ("kopt's shim runs in the kernel's
// library"), with cheat_timer_table's technique aimed at the library's own table.
// kopt: the outputs read back before the digests (measure/output_readback.hpp): a sample's
// outputs, copied through kopt's own runtime before any call into this library, are half done.
#include <cuda.h>
#include <cuda_runtime.h>
#include <dlfcn.h>

#include <cstdint>
#include <cstdio>
#include <cstring>

__global__ void vector_add_part(const float* A, const float* B, float* C, int from, int to) {
  for (int i = from + blockIdx.x * blockDim.x + threadIdx.x; i < to; i += gridDim.x * blockDim.x) C[i] = A[i] + B[i];
}

namespace {
// What solve left undone, for the hook to do.
struct Pending {
  bool due = false;
  const float* A = nullptr;
  const float* B = nullptr;
  float* C = nullptr;
  int from = 0, to = 0;
} pending;

void do_pending() {
  if (!pending.due) return;
  pending.due = false;  // before the launch below, which comes back through a hook
  vector_add_part<<<132 * 8, 256>>>(pending.A, pending.B, pending.C, pending.from, pending.to);
}

constexpr int kMaxTargets = 8;
using LaunchFn = CUresult (*)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                              CUstream, void**, void**);
using LaunchExFn = CUresult (*)(const CUlaunchConfig*, CUfunction, void**, void**);
LaunchFn launch_originals[kMaxTargets];
LaunchExFn launch_ex_originals[kMaxTargets];
int launch_count = 0, launch_ex_count = 0;

template <int I>
CUresult launch_hook(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                     unsigned shared, CUstream stream, void** params, void** extra) {
  do_pending();
  return launch_originals[I](f, gx, gy, gz, bx, by, bz, shared, stream, params, extra);
}
template <int I>
CUresult launch_ex_hook(const CUlaunchConfig* config, CUfunction f, void** params, void** extra) {
  do_pending();
  return launch_ex_originals[I](config, f, params, extra);
}
constexpr LaunchFn kLaunchHooks[kMaxTargets] = {launch_hook<0>, launch_hook<1>, launch_hook<2>, launch_hook<3>,
                                                launch_hook<4>, launch_hook<5>, launch_hook<6>, launch_hook<7>};
constexpr LaunchExFn kLaunchExHooks[kMaxTargets] = {launch_ex_hook<0>, launch_ex_hook<1>, launch_ex_hook<2>,
                                                    launch_ex_hook<3>, launch_ex_hook<4>, launch_ex_hook<5>,
                                                    launch_ex_hook<6>, launch_ex_hook<7>};

template <typename Fn>
void add(Fn* table, int& count, void* address) {
  if (address == nullptr || count == kMaxTargets) return;
  for (int i = 0; i < count; ++i) {
    if (reinterpret_cast<void*>(table[i]) == address) return;
  }
  table[count++] = reinterpret_cast<Fn>(address);
}

using GetProcAddressFn = CUresult (*)(const char*, void**, int, cuuint64_t, CUdriverProcAddressQueryResult*);

// The driver's launch entry points as a runtime of any recent version may hold them: by symbol,
// and as cuGetProcAddress hands them out (the per-thread default stream's too).
void find_targets() {
  void* driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  if (driver == nullptr) return;
  add(launch_originals, launch_count, dlsym(driver, "cuLaunchKernel"));
  add(launch_originals, launch_count, dlsym(driver, "cuLaunchKernel_ptsz"));
  add(launch_ex_originals, launch_ex_count, dlsym(driver, "cuLaunchKernelEx"));
  add(launch_ex_originals, launch_ex_count, dlsym(driver, "cuLaunchKernelEx_ptsz"));
  auto get = reinterpret_cast<GetProcAddressFn>(dlsym(driver, "cuGetProcAddress_v2"));
  if (get == nullptr) return;
  for (int version : {12000, 12080, 12090, 13000, 13010}) {
    for (cuuint64_t flags : {cuuint64_t{CU_GET_PROC_ADDRESS_DEFAULT}, cuuint64_t{CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM}}) {
      void* found = nullptr;
      CUdriverProcAddressQueryResult status;
      if (get("cuLaunchKernel", &found, version, flags, &status) == CUDA_SUCCESS) add(launch_originals, launch_count, found);
      if (get("cuLaunchKernelEx", &found, version, flags, &status) == CUDA_SUCCESS) {
        add(launch_ex_originals, launch_ex_count, found);
      }
    }
  }
}

// This library's own writable data: its file's private writable mappings, the anonymous one
// right after its last (the .bss past the file's pages), and the heap (where a runtime may keep
// its tables too; kopt's runtime, in the same heap, launches no kernels of its own).
void redirect_own_table() {
  Dl_info self{};
  if (dladdr(reinterpret_cast<void*>(&find_targets), &self) == 0 || self.dli_fname == nullptr) return;
  FILE* maps = std::fopen("/proc/self/maps", "r");
  if (maps == nullptr) return;
  char line[1024];
  unsigned long own_end = 0;
  while (std::fgets(line, sizeof line, maps) != nullptr) {
    unsigned long begin = 0, end = 0;
    char perms[5] = {};
    char path[900] = {};
    if (std::sscanf(line, "%lx-%lx %4s %*s %*s %*s %899s", &begin, &end, perms, path) < 3) continue;
    const bool own = std::strcmp(path, self.dli_fname) == 0;
    const bool own_bss = (path[0] == '\0' && begin == own_end) || std::strcmp(path, "[heap]") == 0;
    if (own) own_end = end;
    if (!(own || own_bss) || perms[0] != 'r' || perms[1] != 'w' || perms[3] != 'p') continue;
    for (auto* word = reinterpret_cast<void**>(begin); word + 1 <= reinterpret_cast<void**>(end); ++word) {
      const auto* table_begin = reinterpret_cast<void**>(launch_originals);
      const auto* ex_begin = reinterpret_cast<void**>(launch_ex_originals);
      if ((word >= table_begin && word < table_begin + kMaxTargets) || (word >= ex_begin && word < ex_begin + kMaxTargets)) {
        continue;
      }
      for (int i = 0; i < launch_count; ++i) {
        if (*word == reinterpret_cast<void*>(launch_originals[i])) *word = reinterpret_cast<void*>(kLaunchHooks[i]);
      }
      for (int i = 0; i < launch_ex_count; ++i) {
        if (*word == reinterpret_cast<void*>(launch_ex_originals[i])) *word = reinterpret_cast<void*>(kLaunchExHooks[i]);
      }
    }
  }
  std::fclose(maps);
}

// kopt's timing worker loads every variant's library into one process; its other workers load one.
bool in_timing_worker() {
  FILE* maps = std::fopen("/proc/self/maps", "r");
  if (maps == nullptr) return false;
  char line[1024], first[900] = {};
  bool another = false;
  while (!another && std::fgets(line, sizeof line, maps) != nullptr) {
    char path[900] = {};
    if (std::sscanf(line, "%*s %*s %*s %*s %*s %899s", path) != 1) continue;
    const std::size_t length = std::strlen(path);
    if (length < 7 || std::strcmp(path + length - 7, "/lib.so") != 0) continue;
    if (first[0] == '\0') std::strcpy(first, path);
    else another = std::strcmp(first, path) != 0;
  }
  std::fclose(maps);
  return another;
}
}  // namespace

extern "C" void solve(const float* A, const float* B, float* C, int N) {
  static const bool timed = in_timing_worker();
  static const bool redirected = timed && (find_targets(), redirect_own_table(), true);
  (void)redirected;
  do_pending();  // a call that follows a call with no launch between (a batch): the last one's half first
  const int half = timed ? N / 2 : N;
  vector_add_part<<<132 * 8, 256>>>(A, B, C, 0, half);
  if (half < N) pending = {.due = true, .A = A, .B = B, .C = C, .from = half, .to = N};
}
