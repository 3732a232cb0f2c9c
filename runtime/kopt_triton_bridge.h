// The bridge between kopt's worker and a Triton kernel's Python solve (docs/triton.md). kopt
// generates, from the signature parsed from kernel.py, a solve that packs its arguments into
// words and hands them to the callback python/kopt_triton_host.py registers; this file, the
// shim and that solve are the bridge library the worker loads like any kernel library.
// Plain C++ (no CUDA): the unit tests include it.
#ifndef KOPT_TRITON_BRIDGE_H
#define KOPT_TRITON_BRIDGE_H

#include <cstdint>
#include <cstring>

// One argument as a 64-bit word: a device address, an integer widened to 64 bits, or a real
// as the bits of a double. The host script knows each word's kind from the signature.
typedef std::uint64_t kopt_bridge_word;
typedef void (*kopt_bridge_callback)(int count, const kopt_bridge_word* words);

static kopt_bridge_callback kopt_bridge_registered = nullptr;
static int kopt_bridge_unregistered_calls = 0;

extern "C" void kopt_bridge_register(kopt_bridge_callback callback) { kopt_bridge_registered = callback; }

// Calls of solve that found no callback (the host script did not register one): the call does
// nothing, so the check reports the outputs as unwritten, and the host script says why.
extern "C" int kopt_bridge_unregistered() { return kopt_bridge_unregistered_calls; }

inline kopt_bridge_word kopt_bridge_pointer(const void* pointer) {
  return static_cast<kopt_bridge_word>(reinterpret_cast<std::uintptr_t>(pointer));
}

inline kopt_bridge_word kopt_bridge_integer(long long value) { return static_cast<kopt_bridge_word>(value); }

inline kopt_bridge_word kopt_bridge_real(double value) {
  kopt_bridge_word word;
  std::memcpy(&word, &value, sizeof word);
  return word;
}

inline void kopt_bridge_forward(int count, const kopt_bridge_word* words) {
  if (kopt_bridge_registered == nullptr) {
    ++kopt_bridge_unregistered_calls;
    return;
  }
  kopt_bridge_registered(count, words);
}

#endif
