#include "kopt/run/block_scaled_fill.hpp"

#include <gtest/gtest.h>

#include <cuda_fp8.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "kopt/core/error.hpp"
#include "kopt/run/host_data.hpp"
#include "kopt/spec/dtype.hpp"
#include "kopt/spec/problem_spec.hpp"

namespace kopt::run {
namespace {

const spec::BlockElementFormat& e2m1() { return spec::block_element_format("e2m1"); }
const spec::BlockElementFormat& e4m3() { return spec::block_element_format("e4m3"); }

// The OCP MX v1.0 spec's E2M1 table (section 5.3.3): codes 0..7 are 0, 0.5, 1, 1.5, 2, 3, 4, 6.
TEST(BlockScaledFill, EncodesE2M1AsTheOcpTableRoundingTiesToEven) {
  const float exact[] = {0, 0.5f, 1, 1.5f, 2, 3, 4, 6};
  for (int code = 0; code < 8; ++code) {
    EXPECT_EQ(encode_element(exact[code], e2m1()), code) << exact[code];
    EXPECT_EQ(encode_element(-exact[code], e2m1()), code | 0x8) << -exact[code];
  }
  EXPECT_EQ(encode_element(0.25f, e2m1()), 0x0);  // halfway 0 / 0.5: the even code, 0
  EXPECT_EQ(encode_element(0.75f, e2m1()), 0x2);  // halfway 0.5 / 1: 1.0 (mantissa 0)
  EXPECT_EQ(encode_element(2.5f, e2m1()), 0x4);   // halfway 2 / 3: 2
  EXPECT_EQ(encode_element(5.0f, e2m1()), 0x6);   // halfway 4 / 6: 4
  EXPECT_EQ(encode_element(5.01f, e2m1()), 0x7);
  EXPECT_EQ(encode_element(100.0f, e2m1()), 0x7);  // saturates: e2m1 has no infinity
  EXPECT_EQ(encode_element(-0.1f, e2m1()), 0x8);   // rounds to -0, the sign kept (as torchao)
}

// OCP FP8 E4M3: bias 7, 1.0 is 0x38, the largest finite 448 is 0x7E, the smallest subnormal
// 2^-9 is 0x01, the smallest normal 2^-6 is 0x08.
TEST(BlockScaledFill, EncodesE4M3AsTheOcpFp8Spec) {
  EXPECT_EQ(encode_element(1.0f, e4m3()), 0x38);
  EXPECT_EQ(encode_element(448.0f, e4m3()), 0x7E);
  EXPECT_EQ(encode_element(-448.0f, e4m3()), 0xFE);
  EXPECT_EQ(encode_element(464.0f, e4m3()), 0x7E);   // halfway 448 / 480: 448, and 480 is NaN's code anyway
  EXPECT_EQ(encode_element(1.0e6f, e4m3()), 0x7E);   // saturates to the largest finite
  EXPECT_EQ(encode_element(std::ldexp(1.0f, -9), e4m3()), 0x01);
  EXPECT_EQ(encode_element(std::ldexp(1.0f, -6), e4m3()), 0x08);
  EXPECT_EQ(encode_element(std::ldexp(1.0f, -10), e4m3()), 0x00);     // halfway 0 / 2^-9: 0
  EXPECT_EQ(encode_element(std::ldexp(3.0f, -10), e4m3()), 0x02);     // halfway 2^-9 / 2^-8: 2^-8
  EXPECT_EQ(encode_element(-std::ldexp(1.0f, -12), e4m3()), 0x80);
}

// CUDA's own e4m3 conversion (round to nearest even, saturating to finite) agrees everywhere
// torchao's clamp-then-cast is defined: a sweep across the range, subnormals included.
TEST(BlockScaledFill, E4M3AgreesWithCudasSaturatingConversion) {
  for (float v = -500.0f; v <= 500.0f; v += 0.0371f) {
    const __nv_fp8_e4m3 cuda(v);
    std::uint8_t bits = 0;
    std::memcpy(&bits, &cuda, 1);
    ASSERT_EQ(encode_element(v, e4m3()), bits) << v;
    const float small = v * 1e-4f;
    const __nv_fp8_e4m3 cuda_small(small);
    std::memcpy(&bits, &cuda_small, 1);
    ASSERT_EQ(encode_element(small, e4m3()), bits) << small;
  }
}

// The scale is 2^(floor(log2 max_abs) - floor(log2 max)): for mxfp4 (max 6, 2^2) a block whose
// largest magnitude is 1.0 gets 2^-2 (byte 125), one of 0.99 gets 2^-3 (124); for mxfp8 (max
// 448, 2^8) 1.0 gets 2^-8 (119). A zero block gets the smallest scale, a non-finite one NaN.
TEST(BlockScaledFill, E8M0ScaleIsTheFloorPowerOfTwo) {
  const spec::ScaleFormat& scale = spec::block_scale_format();
  EXPECT_EQ(e8m0_scale_of(1.0f, e2m1(), scale), 125);
  EXPECT_EQ(e8m0_scale_of(0.99f, e2m1(), scale), 124);
  EXPECT_EQ(e8m0_scale_of(1.0f, e4m3(), scale), 119);
  EXPECT_EQ(e8m0_scale_of(0.0f, e2m1(), scale), 0);
  EXPECT_EQ(e8m0_scale_of(INFINITY, e2m1(), scale), 255);
  EXPECT_EQ(e8m0_reciprocal(125, scale), 4.0f);
  EXPECT_EQ(e8m0_reciprocal(0, scale), std::ldexp(1.0f, 127));
}

spec::InitSpec mx_fill(const std::string& text) { return spec::InitFormula::parse(text).bind({}); }

std::vector<std::byte> fill(const std::string& text, std::size_t bytes, std::uint64_t seed = 5) {
  std::vector<std::byte> data(bytes);
  fill_buffer(data, *spec::dtype_named("uint8"), mx_fill(text), seed, "q");
  return data;
}

// The two halves quantize the source a float32 buffer named `a` with the same fill holds: each
// packed element times its scale is within the format's widest gap of the source value, and the
// source's name (not the buffer's) keys the values.
TEST(BlockScaledFill, DataAndScaleAreOneQuantizationOfTheNamedSource) {
  const std::int64_t rows = 4, columns = 64;
  std::vector<std::byte> source(rows * columns * 4);
  fill_buffer(source, *spec::dtype_named("float32"), spec::InitSpec::parse("uniform(-1,1)"), 5, "a");
  const auto data = fill("mx_data(uniform(-1,1), e2m1, 32, a)", rows * columns / 2);
  const auto scales = fill("mx_scale(uniform(-1,1), e2m1, 32, a)", rows * columns / 32);
  const float decoded[] = {0, 0.5f, 1, 1.5f, 2, 3, 4, 6};
  for (std::int64_t i = 0; i < rows * columns; ++i) {
    const int code = (std::to_integer<int>(data[i / 2]) >> (i % 2 == 0 ? 0 : 4)) & 0xF;
    const float step = std::ldexp(1.0f, std::to_integer<int>(scales[i / 32]) - 127);
    const float value = (code & 0x8 ? -1.0f : 1.0f) * decoded[code & 0x7] * step;
    float expected = 0;
    std::memcpy(&expected, source.data() + i * 4, 4);
    // e2m1's widest gap is 4 to 6, and FLOOR scaling leaves a block's largest values in [4, 8), so
    // [6, 8) saturates to 6: at most 2 scale steps away
    EXPECT_LE(std::fabs(value - expected), 2 * step) << i;
  }
  EXPECT_EQ(fill("mx_data(uniform(-1,1), e2m1, 32, a)", 128, 6), fill("mx_data(uniform(-1,1), e2m1, 32, a)", 128, 6));
  EXPECT_NE(fill("mx_data(uniform(-1,1), e2m1, 32, a)", 128), fill("mx_data(uniform(-1,1), e2m1, 32, b)", 128));
}

// The blocked layout holds the row-major scales at torchao's to_blocked places: within a 128 x 4
// tile, row r and block column c at (r % 32) * 16 + (r / 32) * 4 + c; tiles row-major; padding 0.
TEST(BlockScaledFill, BlockedScalesAreTheRowMajorScalesRearranged) {
  const std::int64_t rows = 130, columns = 5 * 32, blocks_per_row = 5;
  const auto linear = fill("mx_scale(normal, e4m3, 32, a)", rows * blocks_per_row);
  const std::int64_t bytes = spec::blocked_scale_bytes(rows, blocks_per_row);
  ASSERT_EQ(bytes, 256 * 8);
  const auto blocked = fill("mx_scale_blocked(normal, e4m3, 32, a, 130, 160)", static_cast<std::size_t>(bytes));
  std::vector<bool> used(static_cast<std::size_t>(bytes));
  for (std::int64_t r = 0; r < rows; ++r) {
    for (std::int64_t c = 0; c < blocks_per_row; ++c) {
      const std::int64_t tile = (r / 128) * 2 + c / 4;
      const std::int64_t at = tile * 512 + (r % 32) * 16 + (r % 128) / 32 * 4 + c % 4;
      EXPECT_EQ(blocked[at], linear[r * blocks_per_row + c]) << r << "," << c;
      used[at] = true;
    }
  }
  for (std::int64_t at = 0; at < bytes; ++at) {
    if (!used[at]) EXPECT_EQ(std::to_integer<int>(blocked[at]), 0) << at;
  }
  (void)columns;
}

TEST(BlockScaledFill, SpellingsAreCheckedWhenParsed) {
  EXPECT_EQ(mx_fill("mx_scale_blocked(normal(0,1), e2m1, 32, a, 128, 64)").text(),
            "mx_scale_blocked(normal,e2m1,32,a,128,64)");
  EXPECT_THROW(mx_fill("mx_data(uniform(-1,1), e9m9, 32, a)"), Error);
  EXPECT_THROW(mx_fill("mx_data(int(0,3), e2m1, 32, a)"), Error);
  EXPECT_THROW(mx_fill("mx_data(uniform(-1,1), e2m1, 32, 3a)"), Error);
  EXPECT_THROW(mx_fill("mx_scale(uniform(-1,1), e2m1, 0, a)"), Error);
  EXPECT_THROW(mx_fill("mx_scale_blocked(uniform(-1,1), e2m1, 32, a)"), Error);
  EXPECT_NE(spec::block_scaled_size_problem(*mx_fill("mx_data(uniform(-1,1), e2m1, 32, a)").block_scaled, 15), "");
  EXPECT_NE(spec::block_scaled_size_problem(*mx_fill("mx_scale_blocked(normal, e2m1, 32, a, 128, 128)").block_scaled, 100),
            "");
}

}  // namespace
}  // namespace kopt::run
