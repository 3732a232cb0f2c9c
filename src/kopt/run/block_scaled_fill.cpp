#include "kopt/run/block_scaled_fill.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <vector>

#include "kopt/core/parallel_for.hpp"
#include "kopt/run/host_data.hpp"
#include "kopt_input_generator.h"

namespace kopt::run {
namespace {

using spec::BlockElementFormat;
using spec::BlockScaledInit;
using spec::BlockScaledPart;

constexpr int kFloat32ExponentBias = 127;
constexpr int kFloat32MantissaBits = 23;
constexpr std::int64_t kBlocksPerChunk = 1 << 14;
constexpr unsigned kQuantizerThreads = 16;

// floor(log2(magnitude)) for a finite magnitude > 0, exact (frexp, not log2, which may round
// 2 - 2^-23 up to 1).
int floor_log2(double magnitude) {
  int exponent = 0;
  std::frexp(magnitude, &exponent);
  return exponent - 1;
}

// Where the scale of block (row, block_column) lies in cuBLAS's blocked layout: 128 x 4 tiles in
// row-major tile order, each tile stored as its four 32-row strips interleaved (offset
// (row % 32) * 16 + (row % 128) / 32 * 4 + column % 4), as torchao's to_blocked writes them.
std::int64_t blocked_offset(std::int64_t row, std::int64_t block_column, std::int64_t blocks_per_row) {
  const std::int64_t tiles_per_row = (blocks_per_row + 3) / 4;
  const std::int64_t tile = (row / 128) * tiles_per_row + block_column / 4;
  return tile * 512 + (row % 32) * 16 + (row % 128) / 32 * 4 + block_column % 4;
}

// One block: its scale byte, and its elements' codes into `codes` (block values long).
std::uint8_t quantize_block(std::span<const float> values, const BlockElementFormat& element,
                            const spec::ScaleFormat& scale, std::span<std::uint8_t> codes) {
  float max_abs = 0;
  for (float v : values) max_abs = std::isnan(v) || std::isnan(max_abs) ? NAN : std::max(max_abs, std::fabs(v));
  const std::uint8_t scale_byte = e8m0_scale_of(max_abs, element, scale);
  const float reciprocal = e8m0_reciprocal(scale_byte, scale);
  for (std::size_t i = 0; i < values.size(); ++i) codes[i] = encode_element(values[i] * reciprocal, element);
  return scale_byte;
}

// Writes blocks [first, last) of the source: their codes (packed) or their scales.
void quantize_blocks(std::span<std::byte> data, const spec::InitSpec& init, std::uint64_t key, std::int64_t first,
                     std::int64_t last) {
  const BlockScaledInit& mx = *init.block_scaled;
  const BlockElementFormat& element = spec::block_element_format(mx.element);
  const spec::ScaleFormat& scale = spec::block_scale_format();
  const std::size_t block = static_cast<std::size_t>(mx.block);
  std::vector<float> values(block);
  std::vector<std::uint8_t> codes(block);
  for (std::int64_t b = first; b < last; ++b) {
    for (std::size_t i = 0; i < block; ++i) {  // as fill_buffer draws a float32 buffer named `source`
      const std::uint64_t index = static_cast<std::uint64_t>(b) * block + i;
      const std::uint64_t bits = kopt_generator::element_bits(key, index);
      values[i] = static_cast<float>(kopt_generator::element_value(bits, static_cast<int>(init.kind), init.a, init.b));
    }
    const std::uint8_t scale_byte = quantize_block(values, element, scale, codes);
    if (mx.part == BlockScaledPart::scale) {
      data[static_cast<std::size_t>(b)] = std::byte{scale_byte};
    } else if (mx.part == BlockScaledPart::scale_blocked) {
      const std::int64_t blocks_per_row = mx.columns / mx.block;
      data[static_cast<std::size_t>(blocked_offset(b / blocks_per_row, b % blocks_per_row, blocks_per_row))] =
          std::byte{scale_byte};
    } else if (element.per_byte == 1) {
      for (std::size_t i = 0; i < block; ++i) data[static_cast<std::size_t>(b) * block + i] = std::byte{codes[i]};
    } else {  // two to a byte, the lower index in the low nibble
      for (std::size_t i = 0; i < block; i += 2) {
        data[(static_cast<std::size_t>(b) * block + i) / 2] = std::byte(static_cast<std::uint8_t>(codes[i] | (codes[i + 1] << 4)));
      }
    }
  }
}

}  // namespace

std::uint8_t e8m0_scale_of(float max_abs, const BlockElementFormat& element, const spec::ScaleFormat& scale) {
  if (!std::isfinite(max_abs)) return static_cast<std::uint8_t>(scale.nan);
  const int exponent_field = static_cast<int>((std::bit_cast<std::uint32_t>(max_abs) >> kFloat32MantissaBits) & 0xFF);
  const int unbiased = std::clamp(exponent_field - kFloat32ExponentBias - element.max_pow2(), -scale.bias, scale.bias + 1);
  return static_cast<std::uint8_t>(unbiased + scale.bias);
}

float e8m0_reciprocal(std::uint8_t scale_byte, const spec::ScaleFormat& scale) {
  if (scale_byte == scale.nan) return NAN;
  return std::ldexp(1.0f, scale.bias - scale_byte);
}

std::uint8_t encode_element(float value, const BlockElementFormat& element) {
  const std::uint8_t sign = std::signbit(value) ? static_cast<std::uint8_t>(element.sign_bit()) : 0;
  const double magnitude = std::fabs(static_cast<double>(value));
  if (std::isnan(magnitude)) return static_cast<std::uint8_t>(sign | (element.nan_code >= 0 ? element.nan_code : element.sign_bit() - 1));
  const int min_exponent = 1 - element.bias();  // of the normal values; below it, subnormals
  const int exponent = magnitude == 0 ? min_exponent : std::max(floor_log2(magnitude), min_exponent);
  const double quantum = std::ldexp(1.0, exponent - element.mantissa_bits);
  const double rounded = std::min(std::nearbyint(magnitude / quantum) * quantum, element.max);  // ties to even
  if (rounded == 0) return sign;
  const int rounded_exponent = floor_log2(rounded);
  int exponent_field = 0;
  double mantissa = rounded / std::ldexp(1.0, min_exponent - element.mantissa_bits);
  if (rounded_exponent >= min_exponent) {
    exponent_field = rounded_exponent + element.bias();
    mantissa = rounded / std::ldexp(1.0, rounded_exponent - element.mantissa_bits) - (1 << element.mantissa_bits);
  }
  return static_cast<std::uint8_t>(sign | (exponent_field << element.mantissa_bits) | static_cast<int>(mantissa));
}

void fill_block_scaled(std::span<std::byte> data, const spec::InitSpec& init, std::uint64_t seed) {
  const BlockScaledInit& mx = *init.block_scaled;
  std::ranges::fill(data, std::byte{0});  // the blocked layout's padding is zero bytes
  const std::int64_t blocks = spec::block_scaled_source_values(mx, static_cast<std::int64_t>(data.size())) / mx.block;
  const std::uint64_t key = buffer_stream_key(seed, mx.source);
  const std::int64_t chunks = (blocks + kBlocksPerChunk - 1) / kBlocksPerChunk;
  parallel_for(
      static_cast<std::size_t>(chunks),
      [&](std::size_t chunk) {
        const std::int64_t first = static_cast<std::int64_t>(chunk) * kBlocksPerChunk;
        quantize_blocks(data, init, key, first, std::min(blocks, first + kBlocksPerChunk));
      },
      kQuantizerThreads);
}

}  // namespace kopt::run
