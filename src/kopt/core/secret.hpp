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

// 64 random bits drawn from the Linux kernel's getrandom at the moment of the call, through a
// system-call instruction in kopt's own code: no library function, PLT entry or GOT slot that a
// kernel's library could redirect stands in between (the timing worker's per-call seeds,
// measure/timed_call_inputs.hpp). Falls back to secret_seed's source where the system call
// cannot be made that way (another architecture, a kernel without getrandom).
std::uint64_t fresh_secret_64();

}  // namespace kopt
