#include "kopt/run/host_data.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <vector>

#include "kopt/spec/dtype.hpp"
#include "kopt/spec/problem_spec.hpp"
#include "../../../runtime/kopt_input_generator.h"

namespace kopt::run {
namespace {

std::vector<double> generate(const std::string& dtype_name, const spec::InitSpec& init, std::int64_t n,
                             std::uint64_t seed, const std::string& buffer = "A") {
  const spec::DType& dtype = *spec::dtype_named(dtype_name);
  std::vector<std::byte> data(static_cast<std::size_t>(n) * dtype.bytes);
  fill_buffer(data, dtype, init, seed, buffer);
  std::vector<double> values;
  for (std::int64_t i = 0; i < n; ++i) values.push_back(element_as_double(data.data(), element_type(dtype), i));
  return values;
}

TEST(FillBuffer, IsReproducibleAndDependsOnSeedAndBuffer) {
  spec::InitSpec normal{};
  auto a = generate("float32", normal, 3'000'000, 7);
  EXPECT_EQ(a, generate("float32", normal, 3'000'000, 7));
  EXPECT_NE(a, generate("float32", normal, 3'000'000, 8));
  EXPECT_NE(a, generate("float32", normal, 3'000'000, 7, "B"));
}

// Element i's value depends on (seed, buffer, i) only, not on the buffer's length or on which
// thread filled its chunk: a shorter buffer is the longer one's prefix, across chunk borders.
TEST(FillBuffer, AShorterBufferIsTheLongerOnesPrefix) {
  spec::InitSpec normal{};
  const auto longer = generate("float32", normal, 3'000'000, 7);
  const auto shorter = generate("float32", normal, 1'500'000, 7);
  EXPECT_TRUE(std::equal(shorter.begin(), shorter.end(), longer.begin()));
}

TEST(FillBuffer, NormalHasTheRequestedMoments) {
  auto v = generate("float32", {.kind = spec::InitKind::normal, .a = 2.0, .b = 0.5}, 1'000'000, 1);
  double mean = std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
  double var = 0;
  for (double x : v) var += (x - mean) * (x - mean);
  var /= static_cast<double>(v.size() - 1);
  EXPECT_NEAR(mean, 2.0, 0.005);
  EXPECT_NEAR(std::sqrt(var), 0.5, 0.005);
}

TEST(FillBuffer, BoundedIntegersStayInRangeAndCoverIt) {
  auto v = generate("int32", {.kind = spec::InitKind::integers, .a = 0, .b = 9}, 100'000, 3);
  EXPECT_EQ(*std::min_element(v.begin(), v.end()), 0);
  EXPECT_EQ(*std::max_element(v.begin(), v.end()), 9);
  for (double x : v) EXPECT_EQ(x, std::floor(x));
}

// int[lo,hi) is int(lo,hi-1) once bound: the same generator call, so the same values on
// the host and on the GPU (the generator is unchanged), and hi is never drawn.
TEST(FillBuffer, HalfOpenRangeIsTheInclusiveRangeBelowHi) {
  auto half_open = generate("int32", spec::InitSpec::parse("int[0,10)"), 100'000, 3);
  EXPECT_EQ(half_open, generate("int32", spec::InitSpec::parse("int(0,9)"), 100'000, 3));
  EXPECT_EQ(*std::max_element(half_open.begin(), half_open.end()), 9);
  EXPECT_EQ(*std::min_element(half_open.begin(), half_open.end()), 0);
  auto bins = spec::InitFormula::parse("int[0, num_bins)").bind({{"num_bins", std::int64_t{10}}});
  EXPECT_EQ(generate("int32", bins, 100'000, 3), half_open);
}

// The Python runner builds the zeros of a zero-start output itself, as all-zero bits
// (test_zero_start_outputs_are_zero_bits_like_the_generators in tests/python): the
// generator's zeros must be those bits in every type (+0.0, never -0.0).
TEST(FillBuffer, ZerosAreAllZeroBitsInEveryType) {
  for (const char* name : {"float64", "float32", "float16", "bfloat16", "float8_e4m3", "float8_e5m2", "int8",
                           "uint32", "int64"}) {
    const spec::DType& dtype = *spec::dtype_named(name);
    std::vector<std::byte> data(100 * dtype.bytes, std::byte{0x5A});
    fill_buffer(data, dtype, {.kind = spec::InitKind::zeros, .a = 0, .b = 0}, 1, "Y");
    EXPECT_TRUE(std::ranges::all_of(data, [](std::byte b) { return b == std::byte{0}; })) << name;
  }
}

TEST(FillBuffer, ZerosAndOnes) {
  auto zeros = generate("float16", {.kind = spec::InitKind::zeros}, 100, 1);
  auto ones = generate("bfloat16", {.kind = spec::InitKind::ones}, 100, 1);
  EXPECT_TRUE(std::all_of(zeros.begin(), zeros.end(), [](double x) { return x == 0; }));
  EXPECT_TRUE(std::all_of(ones.begin(), ones.end(), [](double x) { return x == 1; }));
}

TEST(FillBuffer, FullIsItsValueInEveryElement) {
  auto twos = generate("float32", {.kind = spec::InitKind::full, .a = -2.5, .b = -2.5}, 100, 1);
  auto sevens = generate("int32", {.kind = spec::InitKind::full, .a = 7, .b = 7}, 100, 2);
  EXPECT_TRUE(std::all_of(twos.begin(), twos.end(), [](double x) { return x == -2.5; }));
  EXPECT_TRUE(std::all_of(sevens.begin(), sevens.end(), [](double x) { return x == 7; }));
}

// values(...): the literal list in element order, whatever the seed (a suite's literal data).
TEST(FillBuffer, ValuesAreTheListInElementOrderForEverySeed) {
  const spec::InitSpec listed{.kind = spec::InitKind::values, .a = 0, .b = 0, .values = {16, 128, 256, -3}};
  EXPECT_EQ(generate("int64", listed, 4, 1), (std::vector<double>{16, 128, 256, -3}));
  EXPECT_EQ(generate("int64", listed, 4, 99), (std::vector<double>{16, 128, 256, -3}));
  const spec::InitSpec halves{.kind = spec::InitKind::values, .a = 0, .b = 0, .values = {0.5, -1.5}};
  EXPECT_EQ(generate("float16", halves, 2, 3), (std::vector<double>{0.5, -1.5}));
}

// values(...)'s inf, -inf and nan reach a floating buffer as themselves (max pooling's edge case).
TEST(FillBuffer, NonFiniteValuesAreWrittenAsThemselves) {
  const spec::InitSpec edge = spec::InitSpec::parse("values(inf, -inf, nan, 1e6)");
  for (const char* dtype : {"float32", "float16", "bfloat16"}) {
    const std::vector<double> written = generate(dtype, edge, 4, 5);
    EXPECT_EQ(written[0], INFINITY) << dtype;
    EXPECT_EQ(written[1], -INFINITY) << dtype;
    EXPECT_TRUE(std::isnan(written[2])) << dtype;
  }
}

// sorted(F): F's own values (the same multiset as unsorted), in ascending order.
TEST(FillBuffer, SortedIsTheFillsValuesAscending) {
  const spec::InitSpec uniform{.kind = spec::InitKind::uniform, .a = -1, .b = 1};
  spec::InitSpec ascending = uniform;
  ascending.arrangement = spec::Arrangement::sorted;
  auto drawn = generate("float16", uniform, 5000, 4);
  auto sorted = generate("float16", ascending, 5000, 4);
  EXPECT_TRUE(std::is_sorted(sorted.begin(), sorted.end()));
  std::sort(drawn.begin(), drawn.end());
  EXPECT_EQ(sorted, drawn);
  EXPECT_EQ(ascending.text(), "sorted(uniform(-1,1))");
}

// tril(F, n): F with each n x n matrix's elements above the diagonal zero; triu below.
TEST(FillBuffer, TriangleZeroesTheOtherSideOfEachMatrix) {
  spec::InitSpec lower{.kind = spec::InitKind::uniform, .a = 1, .b = 2};
  lower.arrangement = spec::Arrangement::lower_triangle;
  lower.width = 3;
  auto two = generate("float32", lower, 18, 5);  // two 3 x 3 matrices
  for (int i = 0; i < 18; ++i) {
    const int column = i % 3, row = (i / 3) % 3;
    EXPECT_EQ(two[i] == 0, column > row) << i;
  }
  spec::InitSpec upper = lower;
  upper.arrangement = spec::Arrangement::upper_triangle;
  auto upper_values = generate("float32", upper, 9, 5);
  EXPECT_EQ(upper_values[3], 0);  // row 1, column 0
  EXPECT_NE(upper_values[1], 0);  // row 0, column 1
  EXPECT_EQ(upper.text(), "triu(uniform(1,2),3)");
}

// choice(a, b, p): every element a or b, b about p of the time, the same for a seed.
TEST(FillBuffer, ChoiceDrawsTwoValuesWithItsProbability) {
  const spec::InitSpec signs{.kind = spec::InitKind::choice, .a = -1, .b = 1};
  auto drawn = generate("float32", signs, 20000, 3);
  EXPECT_EQ(drawn, generate("float32", signs, 20000, 3));
  const auto ones = std::ranges::count(drawn, 1.0);
  EXPECT_EQ(ones + std::ranges::count(drawn, -1.0), 20000);
  EXPECT_NEAR(ones / 20000.0, 0.5, 0.02);
  spec::InitSpec rare = signs;
  rare.a = 0;
  rare.b = 10;
  rare.probability = 0.1;
  auto sparse = generate("int32", rare, 20000, 3);
  EXPECT_NEAR(std::ranges::count(sparse, 10.0) / 20000.0, 0.1, 0.01);
  EXPECT_TRUE(rare.host_written());
  EXPECT_EQ(rare.text(), "choice(0,10,0.1)");
}

// softmax(F, n): each run of n elements sums to 1, in the order of the drawn values.
TEST(FillBuffer, SoftmaxMakesEachRowADistribution) {
  const spec::InitSpec uniform{.kind = spec::InitKind::uniform, .a = 0, .b = 1};
  spec::InitSpec rows = uniform;
  rows.arrangement = spec::Arrangement::softmax;
  rows.width = 4;
  auto drawn = generate("float64", uniform, 8, 2);
  auto soft = generate("float64", rows, 8, 2);
  for (int row = 0; row < 2; ++row) {
    double sum = 0;
    for (int i = 4 * row; i < 4 * row + 4; ++i) sum += soft[i];
    EXPECT_NEAR(sum, 1.0, 1e-12);
    double expected = 0;
    for (int i = 4 * row; i < 4 * row + 4; ++i) expected += std::exp(drawn[i] - drawn[4 * row]);
    EXPECT_NEAR(soft[4 * row], 1.0 / expected, 1e-12);
  }
  EXPECT_EQ(rows.text(), "softmax(uniform(0,1),4)");
}

// plus_eye(F, n, v): F with v added to each n x n matrix's diagonal, the rest as drawn.
TEST(FillBuffer, PlusEyeAddsToEachDiagonal) {
  const spec::InitSpec noise{.kind = spec::InitKind::normal, .a = 0, .b = 0.01};
  spec::InitSpec shifted = noise;
  shifted.arrangement = spec::Arrangement::plus_eye;
  shifted.width = 3;
  shifted.diagonal = 0.1;
  auto drawn = generate("float64", noise, 18, 9);
  auto plus = generate("float64", shifted, 18, 9);
  for (int i = 0; i < 18; ++i) {
    const bool diagonal = i % 3 == (i / 3) % 3;
    EXPECT_DOUBLE_EQ(plus[i], drawn[i] + (diagonal ? 0.1 : 0.0)) << i;
  }
  EXPECT_EQ(shifted.text(), "plus_eye(normal(0,0.01),3,0.1)");
}

TEST(ElementConversion, RoundTripsRepresentableValuesInEveryDtype) {
  for (const spec::DType& dtype : spec::all_dtypes()) {
    std::vector<std::byte> data(4 * dtype.bytes);
    const ElementType type = element_type(dtype);
    const double values[] = {0.0, 1.0, 2.0, dtype.kind == spec::DTypeKind::unsigned_integer ? 3.0 : -3.0};
    for (int i = 0; i < 4; ++i) store_element(data.data(), type, i, values[i]);
    for (int i = 0; i < 4; ++i) EXPECT_EQ(element_as_double(data.data(), type, i), values[i]) << dtype.name;
  }
}

TEST(ElementConversion, IntegersSaturateInsteadOfWrapping) {
  const spec::DType& int8 = *spec::dtype_named("int8");
  std::vector<std::byte> data(2);
  store_element(data.data(), element_type(int8), 0, 1000);
  store_element(data.data(), element_type(int8), 1, -1000);
  EXPECT_EQ(element_as_double(data.data(), element_type(int8), 0), 127);
  EXPECT_EQ(element_as_double(data.data(), element_type(int8), 1), -128);
}

// The digest is one term per 8-byte word, the last zero-padded, summed mod 2^64: the GPU's digest
// kernel sums them in another order, and the host sums large outputs in chunks side by side.
TEST(OutputDigest, IsTheSumOfOneTermPerWordWhateverTheChunks) {
  const std::size_t bytes = (std::size_t{3} << 23) + 5;  // three of the host's chunks and a ragged word
  std::vector<std::byte> data(bytes);
  for (std::size_t i = 0; i < bytes; ++i) data[i] = static_cast<std::byte>((i * 2654435761u) >> 13);
  std::uint64_t expected = 0;
  for (std::size_t w = 0; w * 8 < bytes; ++w) {
    std::uint64_t word = 0;
    std::memcpy(&word, data.data() + w * 8, std::min<std::size_t>(8, bytes - w * 8));
    expected += kopt_generator::digest_term(word, w);
  }
  EXPECT_EQ(output_digest(data), expected);
  data[bytes - 1] ^= std::byte{1};  // the ragged word's last byte, in the last chunk
  EXPECT_NE(output_digest(data), expected);
}

TEST(OutputDigest, SwappedWordsDigestDifferently) {
  std::vector<std::byte> data(64);
  data[0] = std::byte{1};
  const std::uint64_t before = output_digest(data);
  std::swap(data[0], data[8]);
  EXPECT_NE(output_digest(data), before);
}

}  // namespace
}  // namespace kopt::run
