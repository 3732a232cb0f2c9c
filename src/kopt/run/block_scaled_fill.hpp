#pragma once
// The host's writer of the block-scaled fills (mx_data, mx_scale, mx_scale_blocked:
// spec/block_scaled.hpp): the source's values drawn as a float32 buffer of the source's name
// would hold them, quantized block by block as torchao's to_mx does in its default (FLOOR)
// scale mode, and one half of the result written. python/kopt_mx_formats.py is the same
// quantizer in torch (or numpy), for the references; tests/python/test_mx_formats.py holds the
// two to the same bytes.

#include <cstddef>
#include <cstdint>
#include <span>

#include "kopt/spec/problem_spec.hpp"

namespace kopt::run {

// The e8m0 scale byte of a block whose largest magnitude is `max_abs`: 2^(floor(log2 max_abs) -
// max_pow2) (the exponent field of max_abs's float32 bits, so a zero or subnormal block gets the
// smallest scale), clamped to what e8m0 holds; NaN for a block that is not finite.
std::uint8_t e8m0_scale_of(float max_abs, const spec::BlockElementFormat& element, const spec::ScaleFormat& scale);

// What a block with scale byte `scale_byte` multiplies its values by before encoding them:
// 2^(bias - s), exact in float32 for every s below the NaN byte.
float e8m0_reciprocal(std::uint8_t scale_byte, const spec::ScaleFormat& scale);

// `value` (already divided by its block's scale) in the element format: rounded to the nearest
// representable value, ties to even, magnitudes beyond the largest saturating to it, the sign
// kept (a negative value that rounds to zero is -0). The code's low bits: sign, exponent, mantissa.
std::uint8_t encode_element(float value, const spec::BlockElementFormat& element);

// Fills `data` (a buffer of 1-byte elements) with the half of the quantization `init` names.
void fill_block_scaled(std::span<std::byte> data, const spec::InitSpec& init, std::uint64_t seed);

}  // namespace kopt::run
