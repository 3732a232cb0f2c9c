#include "kopt/verify/output_comparison.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

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

TEST(FirstChangedElement, FindsTheElementNotTheByte) {
  auto before = bytes_of({1.0f, 2.0f, 3.0f});
  auto after = bytes_of({1.0f, 2.0f, 3.5f});
  EXPECT_EQ(first_changed_element(before, after, 4), 2);
  EXPECT_EQ(first_changed_element(before, before, 4), -1);
}

}  // namespace
}  // namespace kopt::verify
