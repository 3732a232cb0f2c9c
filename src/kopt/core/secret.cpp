#include "kopt/core/secret.hpp"

#include <fmt/format.h>

#include <random>

namespace kopt {
namespace {

std::uint64_t random_64() {
  static thread_local std::random_device device;  // /dev/urandom on Linux
  return (static_cast<std::uint64_t>(device()) << 32) ^ device();
}

}  // namespace

std::uint64_t secret_seed() { return random_64() & ((std::uint64_t{1} << 48) - 1); }

std::string secret_nonce() { return fmt::format("{:016x}{:016x}", random_64(), random_64()); }

}  // namespace kopt
