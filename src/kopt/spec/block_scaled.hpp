#pragma once
// Block-scaled ("microscaling", MX) inputs: a high-precision tensor quantized in blocks, each
// block an e8m0 scale and its elements in a narrow format (data/block_scaled_formats.toml).
// A kernel that dequantizes or multiplies such data takes the packed elements and the scales as
// two buffers; the fills mx_data(...) and mx_scale(...) write the two halves of one quantization
// (docs/check.md), as torchao's to_mx makes them from the same source values.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace kopt::spec {

// One element format of the table: e2m1 (mxfp4), e4m3 (mxfp8).
struct BlockElementFormat {
  std::string name;
  std::string torch_name;  // torchao's elem_dtype: float4_e2m1fn_x2, float8_e4m3fn
  int exponent_bits = 0;
  int mantissa_bits = 0;
  double max = 0;        // the largest finite magnitude; larger values saturate to it
  int per_byte = 1;      // elements packed in a byte (two fp4s: the lower index in the low nibble)
  int nan_code = -1;     // the magnitude bits that mean NaN, -1 for none

  int bias() const { return (1 << (exponent_bits - 1)) - 1; }
  int sign_bit() const { return 1 << (exponent_bits + mantissa_bits); }
  // floor(log2(max)): a block's scale puts its largest magnitude in [2^max_pow2, 2^(max_pow2+1)).
  int max_pow2() const;
};

// The e8m0 scale: a byte s is 2^(s - bias); the byte `nan` is NaN.
struct ScaleFormat {
  int bias = 127;
  int nan = 255;
};

const std::vector<BlockElementFormat>& block_element_formats();
// Throws input_error naming the known formats.
const BlockElementFormat& block_element_format(std::string_view name);
const ScaleFormat& block_scale_format();

// Which half of a quantization a buffer holds: the packed elements, the scales in row-major
// order (one per block, blocks along the source's last axis), or the scales in cuBLAS's blocked
// layout (128 x 4 tiles of the rows x blocks matrix, padded with zero bytes: torchao's to_blocked,
// what to_mx(..., is_swizzled_scales=True) gives a scaled GEMM).
enum class BlockScaledPart { data, scale, scale_blocked };

// A bound block-scaled fill. The source is drawn as a float32 buffer named `source` with the
// inner fill would be (same stream key, same values): every fill naming one source and one inner
// fill quantizes the same values, whichever buffer it writes.
struct BlockScaledInit {
  BlockScaledPart part = BlockScaledPart::data;
  std::string element;        // a name of block_element_formats()
  std::int64_t block = 32;    // values per scale
  std::string source;         // the source tensor's name (its stream key)
  std::int64_t rows = 0;      // scale_blocked: the source's rows and columns
  std::int64_t columns = 0;
};

// The number of source values a buffer of `bytes` bytes with this fill quantizes: its elements
// (data), its blocks' values (scale), or rows x columns (scale_blocked).
std::int64_t block_scaled_source_values(const BlockScaledInit& init, std::int64_t bytes);
// The bytes of the blocked scale layout of a rows x blocks_per_row scale matrix: both padded
// (rows to a multiple of 128, blocks to one of 4).
std::int64_t blocked_scale_bytes(std::int64_t rows, std::int64_t blocks_per_row);
// Why a buffer of `bytes` bytes cannot hold this fill (not a whole number of blocks, a blocked
// layout of another size), or empty where it can.
std::string block_scaled_size_problem(const BlockScaledInit& init, std::int64_t bytes);

}  // namespace kopt::spec
