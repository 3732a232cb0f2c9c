#include "kopt/verify/output_comparison.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "kopt/spec/dtype.hpp"

namespace kopt::verify {
namespace {

std::vector<std::byte> bytes_of(const std::vector<float>& values) {
  std::vector<std::byte> bytes(values.size() * sizeof(float));
  std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

const spec::Tolerance kFp32{.atol = 1e-4, .rtol = 1e-3};

TEST(WithinTolerance, FollowsNumpyAllclose) {
  EXPECT_TRUE(within_tolerance(1.0009, 1.0, kFp32));   // 9e-4 <= 1e-4 + 1e-3
  EXPECT_FALSE(within_tolerance(1.002, 1.0, kFp32));
  EXPECT_TRUE(within_tolerance(5e-5, 0.0, kFp32));
  EXPECT_FALSE(within_tolerance(2e-4, 0.0, kFp32));
}

TEST(WithinTolerance, NanMatchesOnlyNanAndInfinityOnlyItself) {
  const double nan = std::nan("");
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_TRUE(within_tolerance(nan, nan, kFp32));
  EXPECT_FALSE(within_tolerance(nan, 1.0, kFp32));
  EXPECT_FALSE(within_tolerance(1.0, nan, kFp32));
  EXPECT_TRUE(within_tolerance(inf, inf, kFp32));
  EXPECT_FALSE(within_tolerance(inf, -inf, kFp32));
  EXPECT_FALSE(within_tolerance(1e30, inf, kFp32));
}

TEST(WithinTolerance, PassesAtTheExactBoundaryAndFailsJustPastIt) {
  // atol 0.25 + rtol 0.5 × |2| = 1.25 exactly, in binary: the boundary itself is an input.
  const spec::Tolerance tolerance{.atol = 0.25, .rtol = 0.5};
  EXPECT_TRUE(within_tolerance(3.25, 2.0, tolerance));
  EXPECT_TRUE(within_tolerance(0.75, 2.0, tolerance));
  EXPECT_FALSE(within_tolerance(std::nextafter(3.25, 4.0), 2.0, tolerance));
  // Below the reference the next double down rounds back onto the boundary in 2 - out: one
  // step of 2^-52 past it is the nearest that stays past it.
  EXPECT_FALSE(within_tolerance(0.75 - 0x1p-52, 2.0, tolerance));
}

TEST(WithinTolerance, ScalesRtolByTheReferenceNotTheOutput) {
  // |3.5 - 2| = 1.5: beyond 0.5 × |2| = 1 (the reference), within 0.5 × |3.5| = 1.75 (the
  // output). The rule is one-sided, so swapping the two changes the answer.
  const spec::Tolerance tolerance{.atol = 0, .rtol = 0.5};
  EXPECT_FALSE(within_tolerance(3.5, 2.0, tolerance));
  EXPECT_TRUE(within_tolerance(2.0, 3.5, tolerance));
  EXPECT_FALSE(within_tolerance(-3.5, -2.0, tolerance));  // |ref|, not ref: a negative one too
  EXPECT_TRUE(within_tolerance(-2.0, -3.5, tolerance));
}

TEST(WithinTolerance, ZeroToleranceAcceptsOnlyEquality) {
  const spec::Tolerance exact{.atol = 0, .rtol = 0};
  EXPECT_TRUE(within_tolerance(7.0, 7.0, exact));
  EXPECT_TRUE(within_tolerance(0.0, -0.0, exact));
  EXPECT_FALSE(within_tolerance(std::nextafter(7.0, 8.0), 7.0, exact));
  EXPECT_FALSE(within_tolerance(6.0, 7.0, exact));
}

TEST(WithinTolerance, AtolAloneCoversAZeroReference) {
  const spec::Tolerance tolerance{.atol = 0.5, .rtol = 100};
  EXPECT_TRUE(within_tolerance(0.5, 0.0, tolerance));
  EXPECT_TRUE(within_tolerance(-0.5, 0.0, tolerance));
  EXPECT_FALSE(within_tolerance(std::nextafter(0.5, 1.0), 0.0, tolerance));
}

TEST(WithinTolerance, NoToleranceMakesNanOrAnInfinityMatchAnythingElse) {
  const double nan = std::nan("");
  const double inf = std::numeric_limits<double>::infinity();
  const spec::Tolerance huge{.atol = 1e308, .rtol = 1e308};
  EXPECT_FALSE(within_tolerance(nan, 0.0, huge));
  EXPECT_FALSE(within_tolerance(0.0, nan, huge));
  EXPECT_FALSE(within_tolerance(inf, 1e300, huge));
  EXPECT_FALSE(within_tolerance(1e300, -inf, huge));
  EXPECT_FALSE(within_tolerance(nan, inf, huge));
  EXPECT_TRUE(within_tolerance(-inf, -inf, spec::Tolerance{}));
  EXPECT_TRUE(within_tolerance(nan, -nan, spec::Tolerance{}));
}

// `values` stored as `dtype`'s elements (rounded to nearest, integers clamped).
std::vector<std::byte> stored_as(const spec::DType& dtype, const std::vector<double>& values) {
  std::vector<std::byte> bytes(values.size() * dtype.bytes);
  for (std::size_t i = 0; i < values.size(); ++i) {
    run::store_element(bytes.data(), run::element_type(dtype), static_cast<std::int64_t>(i), values[i]);
  }
  return bytes;
}

OutputError compare_as(const spec::DType& dtype, const std::vector<double>& out, const std::vector<double>& ref) {
  return compare_to_reference(dtype.name, stored_as(dtype, out), stored_as(dtype, ref), run::element_type(dtype),
                              dtype.bytes, {.atol = dtype.default_atol, .rtol = dtype.default_rtol});
}

TEST(CompareToReference, EveryIntegerTypeDefaultsToExactEquality) {
  int integer_types = 0;
  for (const spec::DType& dtype : spec::all_dtypes()) {
    if (dtype.is_floating()) continue;
    ++integer_types;
    EXPECT_EQ(dtype.default_atol, 0) << dtype.name;
    EXPECT_EQ(dtype.default_rtol, 0) << dtype.name;
    const std::vector<double> ref = {0, 1, 7, 100};
    EXPECT_TRUE(compare_as(dtype, ref, ref).passed()) << dtype.name << ": exactly right must pass";
    const OutputError off_by_one = compare_as(dtype, {0, 1, 7, 101}, ref);
    EXPECT_EQ(off_by_one.bad_count, 1) << dtype.name;
    EXPECT_EQ(off_by_one.first_bad_index, 3) << dtype.name;
    EXPECT_DOUBLE_EQ(off_by_one.max_abs_error, 1.0) << dtype.name;
  }
  EXPECT_EQ(integer_types, 8);  // int8 … uint64 in data/dtypes.toml
}

TEST(CompareToReference, EveryFloatingTypeTakesWhatItsDefaultToleranceAllows) {
  int floating_types = 0;
  for (const spec::DType& dtype : spec::all_dtypes()) {
    if (!dtype.is_floating()) continue;
    ++floating_types;
    ASSERT_GT(dtype.default_atol, 0) << dtype.name;
    // A power of two at most half of atol: exact in every floating type, fp8 included.
    const double small = std::ldexp(1.0, static_cast<int>(std::floor(std::log2(dtype.default_atol))) - 1);
    const std::vector<std::byte> stored = stored_as(dtype, {small});
    ASSERT_EQ(run::element_as_double(stored.data(), run::element_type(dtype), 0), small) << dtype.name;
    const std::vector<double> ref = {1, 2, 0, -4};
    EXPECT_TRUE(compare_as(dtype, ref, ref).passed()) << dtype.name;
    EXPECT_TRUE(compare_as(dtype, {1, 2, small, -4}, ref).passed()) << dtype.name;
    const OutputError wrong = compare_as(dtype, {1, 2, 0, -2}, ref);  // 2 off, far past atol + rtol × 4
    EXPECT_EQ(wrong.bad_count, 1) << dtype.name;
    EXPECT_EQ(wrong.first_bad_index, 3) << dtype.name;
    EXPECT_DOUBLE_EQ(wrong.first_bad_expected, -4.0) << dtype.name;
  }
  EXPECT_EQ(floating_types, 6);  // float64, float32, float16, bfloat16 and the two fp8
}

template <typename T>
std::vector<std::byte> integer_bytes(const std::vector<T>& values) {
  std::vector<std::byte> bytes(values.size() * sizeof(T));
  std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

TEST(CompareToReference, Tells64BitIntegersApartBeyondWhatADoubleHolds) {
  // 2^53 + 1 and 2^53 are the same double; an exact comparison must still see them differ.
  const std::int64_t big = std::int64_t{1} << 53;
  const spec::Tolerance exact{};
  OutputError signed_error = compare_to_reference("i", integer_bytes<std::int64_t>({big + 1, -big - 1}),
                                                  integer_bytes<std::int64_t>({big, -big - 1}),
                                                  run::ElementType::int64, 8, exact);
  EXPECT_EQ(signed_error.bad_count, 1);
  EXPECT_EQ(signed_error.first_bad_index, 0);
  EXPECT_DOUBLE_EQ(signed_error.max_abs_error, 1.0);
  const std::uint64_t top = std::numeric_limits<std::uint64_t>::max();
  OutputError unsigned_error = compare_to_reference("u", integer_bytes<std::uint64_t>({top - 1, 0}),
                                                    integer_bytes<std::uint64_t>({top, 0}),
                                                    run::ElementType::uint64, 8, exact);
  EXPECT_EQ(unsigned_error.bad_count, 1);
  // The extremes of int64 are 2^64 - 1 apart: no overflow, and far beyond any tolerance.
  const std::int64_t lowest = std::numeric_limits<std::int64_t>::min();
  const std::int64_t highest = std::numeric_limits<std::int64_t>::max();
  OutputError extremes = compare_to_reference("e", integer_bytes<std::int64_t>({lowest, highest}),
                                              integer_bytes<std::int64_t>({highest, highest}),
                                              run::ElementType::int64, 8, {.atol = 1e18, .rtol = 0});
  EXPECT_EQ(extremes.bad_count, 1);
  EXPECT_DOUBLE_EQ(extremes.max_abs_error, 18446744073709551615.0);
  EXPECT_TRUE(compare_to_reference("w", integer_bytes<std::int64_t>({big + 3}), integer_bytes<std::int64_t>({big}),
                                   run::ElementType::int64, 8, {.atol = 3, .rtol = 0})
                  .passed());
}

TEST(CompareToReference, MatchingNanAndInfinitiesPassWithoutPoisoningTheErrors) {
  const float inf = std::numeric_limits<float>::infinity();
  auto data = bytes_of({inf, -inf, std::nanf(""), 1.0f});
  OutputError e = compare_to_reference("C", data, data, run::ElementType::float32, 4, kFp32);
  EXPECT_TRUE(e.passed());
  EXPECT_EQ(e.max_abs_error, 0);
  EXPECT_EQ(e.rel_l2_error, 0);
  OutputError flipped = compare_to_reference("C", bytes_of({-inf, -inf, 2.0f, 1.0f}), data,
                                             run::ElementType::float32, 4, kFp32);
  EXPECT_EQ(flipped.bad_count, 2);
  EXPECT_EQ(flipped.first_bad_index, 0);
  EXPECT_TRUE(std::isfinite(flipped.max_abs_error));
}

TEST(CompareToReference, MergesChunksInIndexOrderOverManyElements) {
  // Over three million elements the comparison runs in chunks of 2^20 side by side: counts,
  // the first bad element and the error sums must be those of one pass in order.
  const std::size_t n = 3'000'000;
  std::vector<float> ref(n), out(n);
  for (std::size_t i = 0; i < n; ++i) ref[i] = out[i] = static_cast<float>(i % 1000) * 0.5f;
  const std::size_t bad[] = {1'500'000, 2'100'000, 2'999'999};  // in the second and third chunks
  for (std::size_t i : bad) out[i] += 1.0f;
  OutputError error = compare_to_reference("x", bytes_of(out), bytes_of(ref), run::ElementType::float32,
                                           sizeof(float), kFp32);
  EXPECT_EQ(error.elements, static_cast<std::int64_t>(n));
  EXPECT_EQ(error.bad_count, 3);
  EXPECT_EQ(error.first_bad_index, 1'500'000);
  EXPECT_DOUBLE_EQ(error.first_bad_expected, ref[1'500'000]);
  EXPECT_DOUBLE_EQ(error.max_abs_error, 1.0);
  EXPECT_DOUBLE_EQ(error.mean_abs_error, 3.0 / static_cast<double>(n));
}

TEST(CompareToReference, ReportsErrorsAndTheFirstBadElement) {
  auto out = bytes_of({1.0f, 2.0f, 3.5f, 4.0f});
  auto ref = bytes_of({1.0f, 2.0f, 3.0f, 4.5f});
  OutputError e = compare_to_reference("C", out, ref, run::ElementType::float32, 4, kFp32);
  EXPECT_EQ(e.elements, 4);
  EXPECT_EQ(e.bad_count, 2);
  EXPECT_EQ(e.first_bad_index, 2);
  EXPECT_DOUBLE_EQ(e.first_bad_value, 3.5);
  EXPECT_DOUBLE_EQ(e.first_bad_expected, 3.0);
  EXPECT_DOUBLE_EQ(e.max_abs_error, 0.5);
  EXPECT_DOUBLE_EQ(e.mean_abs_error, 0.25);
  EXPECT_DOUBLE_EQ(e.max_rel_error, 0.5 / 3.0);
  EXPECT_NEAR(e.rel_l2_error, std::sqrt(0.5 / (1 + 4 + 9 + 20.25)), 1e-12);
  EXPECT_FALSE(e.passed());
}

TEST(CompareToReference, ExactOutputsPass) {
  auto data = bytes_of({1.0f, -2.0f, 0.0f});
  OutputError e = compare_to_reference("C", data, data, run::ElementType::float32, 4, kFp32);
  EXPECT_TRUE(e.passed());
  EXPECT_EQ(e.max_abs_error, 0);
  EXPECT_EQ(e.first_bad_index, -1);
}

TEST(CompareToReference, ANanOutputFailsEvenThoughItHasNoDistance) {
  auto out = bytes_of({1.0f, std::nanf("")});
  auto ref = bytes_of({1.0f, 2.0f});
  OutputError e = compare_to_reference("C", out, ref, run::ElementType::float32, 4, kFp32);
  EXPECT_EQ(e.bad_count, 1);
  EXPECT_EQ(e.first_bad_index, 1);
}

TEST(CompareReruns, ElementsHoldingEachRunsPoisonWereNeverWritten) {
  std::vector<std::byte> first(16, std::byte{0xFF}), second(16, std::byte{0x7F});
  float written = 3.0f;
  std::memcpy(first.data(), &written, 4);
  std::memcpy(second.data(), &written, 4);
  RerunComparison r = compare_reruns(first, second, 0xFF, 0x7F, run::ElementType::float32, 4, kFp32);
  EXPECT_EQ(r.unwritten_count, 3);
  EXPECT_EQ(r.first_unwritten_index, 1);
  EXPECT_EQ(r.differing_count, 0);
}

TEST(CompareReruns, DifferencesWithinToleranceAreNondeterminismNotRaces) {
  auto first = bytes_of({1.0f, 100.0f});
  auto second = bytes_of({1.0f, 100.00001f});
  RerunComparison r = compare_reruns(first, second, 0xFF, 0x7F, run::ElementType::float32, 4, kFp32);
  EXPECT_EQ(r.differing_count, 1);
  EXPECT_EQ(r.beyond_tolerance_count, 0);
}

TEST(CompareReruns, DifferencesBeyondToleranceAreRaces) {
  auto first = bytes_of({1.0f, 100.0f, 7.0f});
  auto second = bytes_of({1.0f, 90.0f, 8.0f});
  RerunComparison r = compare_reruns(first, second, 0xFF, 0x7F, run::ElementType::float32, 4, kFp32);
  EXPECT_EQ(r.beyond_tolerance_count, 2);
  EXPECT_EQ(r.first_beyond_tolerance_index, 1);
  EXPECT_DOUBLE_EQ(r.first_beyond_values[0], 100.0);
  EXPECT_DOUBLE_EQ(r.first_beyond_values[1], 90.0);
}

TEST(CompareReruns, AnyDifferenceInAnIntegerIsARaceAtZeroTolerance) {
  const std::int64_t big = std::int64_t{1} << 53;
  RerunComparison r = compare_reruns(integer_bytes<std::int64_t>({5, big}), integer_bytes<std::int64_t>({5, big + 1}),
                                     0xFF, 0x7F, run::ElementType::int64, 8, spec::Tolerance{});
  EXPECT_EQ(r.differing_count, 1);
  EXPECT_EQ(r.beyond_tolerance_count, 1);
  EXPECT_EQ(r.first_beyond_tolerance_index, 1);
}

TEST(FirstChangedElement, FindsTheElementNotTheByte) {
  auto before = bytes_of({1.0f, 2.0f, 3.0f});
  auto after = bytes_of({1.0f, 2.0f, 3.5f});
  EXPECT_EQ(first_changed_element(before, after, 4), 2);
  EXPECT_EQ(first_changed_element(before, before, 4), -1);
}

}  // namespace
}  // namespace kopt::verify
