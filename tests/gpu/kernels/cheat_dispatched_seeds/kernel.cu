// Planted cheat: the timed calls' inputs chosen by the kernel, with no seccomp filter. Syscall
// user dispatch (PR_SET_SYSCALL_USER_DISPATCH, Linux 5.11) sends a thread's system calls made
// from outside one range of code to a SIGSYS handler. This kernel lets every call through but
// those made by the worker's own executable, where kopt's getrandom instruction is
// (core/secret.cpp): its handler answers getrandom with a counter the kernel knows and makes
// every other call itself (from a shared library, inside the range). As cheat_chosen_seeds, a
// full cheat would then compute the chosen inputs' answers in a warm-up and copy them when
// timed; this stand-in stops at the trap and adds honestly: the trap is what must be seen.
// Source: our own, after cheat_chosen_seeds' filter was counted: what else answers a system call.
// kopt: /proc shows nothing of the dispatch but the handler; the timing worker's census reads
// SigCgt after every load and call: FLAG "solve installed what can answer the timing worker's
// system calls (a SIGSYS handler ...)", timed alone or beside others. The source audit names it
// (system_calls).
#include <cuda_runtime.h>
#include <link.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>

__global__ void vector_add(const float* A, const float* B, float* C, int N) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < N; i += gridDim.x * blockDim.x) C[i] = A[i] + B[i];
}

namespace {

std::uint64_t chosen = 0;
volatile char selector = SYSCALL_DISPATCH_FILTER_ALLOW;

// The executable's own calls arrive here: getrandom is answered with the kernel's counter,
// anything else is made as asked (libc's syscall is inside the range that is let through).
void answer_dispatched(int, siginfo_t* info, void* context) {
  auto* registers = static_cast<ucontext_t*>(context)->uc_mcontext.gregs;
  if (info->si_syscall == SYS_getrandom) {
    auto* buffer = reinterpret_cast<unsigned char*>(registers[REG_RDI]);
    const std::size_t length = static_cast<std::size_t>(registers[REG_RSI]);
    for (std::size_t i = 0; i < length; i += sizeof chosen) {
      ++chosen;
      std::memcpy(buffer + i, &chosen, std::min(length - i, sizeof chosen));
    }
    registers[REG_RAX] = static_cast<long long>(length);
    return;
  }
  const long result = syscall(info->si_syscall, registers[REG_RDI], registers[REG_RSI], registers[REG_RDX],
                              registers[REG_R10], registers[REG_R8], registers[REG_R9]);
  registers[REG_RAX] = result == -1 ? -errno : result;
}

// The end of the executable's code: the first object dl_iterate_phdr reports is the program.
int program_code_end(dl_phdr_info* info, std::size_t, void* end) {
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& segment = info->dlpi_phdr[i];
    if (segment.p_type != PT_LOAD || !(segment.p_flags & PF_X)) continue;
    auto* last = static_cast<std::uintptr_t*>(end);
    *last = std::max<std::uintptr_t>(*last, info->dlpi_addr + segment.p_vaddr + segment.p_memsz);
  }
  return 1;
}

void dispatch_the_programs_calls() {
  struct sigaction action {};
  action.sa_sigaction = answer_dispatched;
  action.sa_flags = SA_SIGINFO;
  sigaction(SIGSYS, &action, nullptr);
  std::uintptr_t end = 0;
  dl_iterate_phdr(program_code_end, &end);
  const std::uintptr_t top = std::uintptr_t{1} << 47;  // user space on x86-64
  if (end == 0 || end >= top) return;
  // Calls from [end, top) (libraries, this one included) go through; the program's are dispatched.
  if (prctl(PR_SET_SYSCALL_USER_DISPATCH, PR_SYS_DISPATCH_ON, end, top - end, &selector) == 0) {
    selector = SYSCALL_DISPATCH_FILTER_BLOCK;
  }
}

}  // namespace

extern "C" void solve(const float* A, const float* B, float* C, int N) {
  static const bool dispatched = (dispatch_the_programs_calls(), true);
  (void)dispatched;
  vector_add<<<132 * 8, 256>>>(A, B, C, N);
}
