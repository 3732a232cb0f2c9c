// kopt's input generator and output digest, shared by the host (src/kopt/run/host_data.cpp)
// and the device (runtime/kopt_shim.cu, compiled into every kernel library).
//
// Both sides must produce the same bits: the check generates inputs on the host, while the
// timing loop regenerates fresh inputs on the GPU before every sample, and a timed sample
// that reuses a check seed is verified by the digest of its outputs against the checked
// outputs (docs/integrity.md). So the generator is counter based (element i depends only on
// the buffer's key and i) and uses only operations that IEEE 754 rounds exactly the same way
// everywhere: integer mixing, and double +, -, * with round-to-nearest, never contracted into
// a fused multiply-add (the device side spells each one out as an intrinsic; the host build
// targets baseline x86-64, which has no FMA to contract into).
#pragma once

#include <stdint.h>

#if defined(__CUDACC__)
#define KOPT_HD __host__ __device__
#else
#define KOPT_HD
#endif

namespace kopt_generator {

// Element types and init kinds, in the order of kopt::run::ElementType and
// kopt::spec::InitKind (static_asserts in host_data.cpp hold the two together).
enum ElementCode {
  f64, f32, f16, bf16, f8e4m3, f8e5m2, i8, u8, i16, u16, i32, u32, i64, u64,
};
// values (a literal list, one value per element) is never generated here: the host writes the
// list (src/kopt/run/host_data.cpp) and uploads it, so the device's fill never sees its code.
enum InitCode { normal, uniform, integers, zeros, ones, full, values };

// The splitmix64 finaliser: a bijective 64-bit mix with full avalanche.
KOPT_HD inline uint64_t mix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// The random bits of element `index` of the buffer whose stream key is `key`.
KOPT_HD inline uint64_t element_bits(uint64_t key, uint64_t index) { return mix64(key ^ mix64(index)); }

KOPT_HD inline double mul_rn(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dmul_rn(a, b);
#else
  return a * b;
#endif
}

KOPT_HD inline double add_rn(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dadd_rn(a, b);
#else
  return a + b;
#endif
}

// The value of one element before conversion to its type. normal(a, b) is approximated by
// the sum of four 16-bit uniforms (Irwin-Hall, scaled to unit variance: tails end at
// ±3.46 sigma), which needs no transcendental function whose last bit could differ between
// the host's and the device's math library.
KOPT_HD inline double element_value(uint64_t bits, int init, double a, double b) {
  switch (init) {
    case normal: {
      const double sum = static_cast<double>((bits & 0xFFFF) + ((bits >> 16) & 0xFFFF) + ((bits >> 32) & 0xFFFF) +
                                             (bits >> 48)) +
                         2.0;                                  // + 4 x 0.5: each uniform at its cell's centre
      const double z = mul_rn(sum * (1.0 / 65536.0) - 2.0, 1.7320508075688772);  // both steps exact before the *
      return add_rn(a, mul_rn(b, z));
    }
    case uniform: {
      const double u = static_cast<double>(bits >> 11) * (1.0 / 9007199254740992.0);  // [0, 1), exact
      return add_rn(a, mul_rn(add_rn(b, -a), u));
    }
    case integers: {
      const int64_t lo = static_cast<int64_t>(a), hi = static_cast<int64_t>(b);
      const uint64_t span = static_cast<uint64_t>(hi - lo) + 1;
      return static_cast<double>(lo + static_cast<int64_t>(span == 0 ? bits : bits % span));
    }
    case zeros: return 0.0;
    case full: return a;  // one value everywhere: a suite's edge case
    default: return 1.0;
  }
}

// One 8-byte word's term of an output digest. The digest of a buffer is the 64-bit sum of
// the terms of its words (the last word zero-padded): order-free, so the device can sum in
// parallel with atomics and the host in any order.
KOPT_HD inline uint64_t digest_term(uint64_t word, uint64_t word_index) { return mix64(word ^ mix64(~word_index)); }

}  // namespace kopt_generator
