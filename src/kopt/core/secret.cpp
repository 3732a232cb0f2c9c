#include "kopt/core/secret.hpp"

#include <fmt/format.h>

#include <sys/syscall.h>

#include <random>

namespace kopt {
namespace {

std::uint64_t random_64() {
  static thread_local std::random_device device;  // /dev/urandom on Linux
  return (static_cast<std::uint64_t>(device()) << 32) ^ device();
}

// getrandom(buffer, 8, 0) as one instruction: the number of bytes written, or -errno.
long getrandom_instruction(std::uint64_t* buffer) {
#if defined(__x86_64__)
  long result;
  asm volatile("syscall"
               : "=a"(result)
               : "a"(static_cast<long>(SYS_getrandom)), "D"(buffer), "S"(sizeof *buffer), "d"(0)
               : "rcx", "r11", "memory");
  return result;
#elif defined(__aarch64__)
  register long x8 asm("x8") = SYS_getrandom;
  register long x0 asm("x0") = reinterpret_cast<long>(buffer);
  register long x1 asm("x1") = sizeof *buffer;
  register long x2 asm("x2") = 0;
  asm volatile("svc 0" : "+r"(x0) : "r"(x8), "r"(x1), "r"(x2) : "memory");
  return x0;
#else
  (void)buffer;
  return -1;
#endif
}

}  // namespace

std::uint64_t fresh_secret_64() {
  std::uint64_t value = 0;
  if (getrandom_instruction(&value) == static_cast<long>(sizeof value)) return value;
  return random_64();
}

std::uint64_t secret_seed() { return random_64() & ((std::uint64_t{1} << 48) - 1); }

std::string secret_nonce() { return fmt::format("{:016x}{:016x}", random_64(), random_64()); }

}  // namespace kopt
