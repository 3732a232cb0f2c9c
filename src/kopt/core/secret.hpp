#pragma once
// Secret random numbers for what a kernel must not be able to predict: the seeds of its
// inputs, the calls that are audited, the nonce of a worker's result (docs/integrity.md).

#include <cstdint>
#include <string>

namespace kopt {

// 48 random bits from the operating system (exact in a JSON number anywhere).
std::uint64_t secret_seed();

// 128 random bits as 32 hex digits.
std::string secret_nonce();

}  // namespace kopt
