#include "kopt/spec/expression.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "kopt/core/error.hpp"

namespace kopt::spec {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

const Dims kDims = {
    {"M", std::int64_t{4096}}, {"N", std::int64_t{1024}}, {"K", std::int64_t{512}}, {"alpha", 0.5}};

std::int64_t integer(std::string_view text, const Dims& dims = kDims) {
  return Expression::parse(text).evaluate_integer(dims);
}

double floating(std::string_view text, const Dims& dims = kDims) {
  Number value = Expression::parse(text).evaluate(dims);
  EXPECT_TRUE(std::holds_alternative<double>(value)) << text;
  return to_double(value);
}

std::string expression_error_of(std::string_view text, const Dims& dims = kDims) {
  try {
    Expression::parse(text).evaluate(dims);
  } catch (const Error& error) {
    return error.what();
  }
  return "no error";
}

TEST(Expression, FollowsArithmeticPrecedence) {
  EXPECT_EQ(integer("2*M*N*K"), std::int64_t{2} * 4096 * 1024 * 512);
  EXPECT_EQ(integer("1 + 2 * 3"), 7);
  EXPECT_EQ(integer("(1 + 2) * 3"), 9);
  EXPECT_EQ(integer("10 - 4 - 3"), 3);
  EXPECT_EQ(integer("100 / 10 / 5"), 2);
  EXPECT_EQ(integer("4*(M*K + K*N + M*N)"), 4 * (4096 * 512 + 512 * 1024 + 4096 * 1024));
  EXPECT_EQ(integer("-M + 1"), -4095);
  EXPECT_EQ(integer("--3"), 3);
  EXPECT_EQ(integer("+3"), 3);
}

TEST(Expression, RemainderBindsLikeMultiplicationNotLikeAddition) {
  // At the + - level these would read (10 - 7) % 4 = 3 and 7 % (4 * 2) = 7.
  EXPECT_EQ(integer("10 - 7 % 4"), 7);
  EXPECT_EQ(integer("7 % 4 * 2"), 6);
  EXPECT_EQ(integer("2 + 9 % 4"), 3);
  EXPECT_EQ(integer("9 % 4 + 2"), 3);
  EXPECT_EQ(integer("100 / 10 % 7"), 3);  // left to right within the level: (100 / 10) % 7
  EXPECT_EQ(integer("100 % 7 / 2"), 1);   // (100 % 7) / 2
}

TEST(Expression, OperatorsOfOneLevelAssociateToTheLeft) {
  EXPECT_EQ(integer("2 - 3 + 4"), 3);
  EXPECT_EQ(integer("2 * 6 / 4"), 3);
  EXPECT_EQ(integer("12 / 6 * 2"), 4);
  EXPECT_EQ(integer("1 - 1 == 0"), 1);
  EXPECT_EQ(integer("3 > 2 > 1"), 0);  // (3 > 2) > 1 is 1 > 1
  EXPECT_EQ(integer("1 == 2 == 0"), 1);
}

TEST(Expression, UnaryOperatorsBindTighterThanBinaryOnes) {
  EXPECT_EQ(integer("2 - -3"), 5);
  EXPECT_EQ(integer("-2 * -3"), 6);
  EXPECT_EQ(integer("!0 + 1"), 2);   // (!0) + 1
  EXPECT_EQ(integer("!1 == 0"), 1);  // (!1) == 0
  EXPECT_EQ(integer("-7 % 3"), -1);  // (-7) % 3, C's sign of the dividend
}

TEST(Expression, ComparisonsHoldExactlyAtTheirBoundary) {
  const Dims tile = {{"BM", std::int64_t{128}}, {"BN", std::int64_t{128}}};
  EXPECT_EQ(integer("BM*BN <= 16384", tile), 1);
  EXPECT_EQ(integer("BM*BN < 16384", tile), 0);
  EXPECT_EQ(integer("BM*BN >= 16384", tile), 1);
  EXPECT_EQ(integer("BM*BN > 16384", tile), 0);
  EXPECT_EQ(integer("BM*BN == 16384", tile), 1);
  EXPECT_EQ(integer("BM*BN != 16384", tile), 0);
  EXPECT_EQ(integer("BM*BN <= 16383", tile), 0);
  EXPECT_EQ(integer("BM*BN >= 16385", tile), 0);
  EXPECT_EQ(integer("BM*BN < 16385", tile), 1);
  EXPECT_EQ(integer("BM*BN > 16383", tile), 1);
  EXPECT_EQ(integer("2 <= 2.0"), 1);  // an integer against a float: by value
  EXPECT_EQ(integer("2 < 2.0"), 0);
  EXPECT_EQ(integer("alpha >= 0.5"), 1);
  EXPECT_EQ(integer("alpha > 0.5"), 0);
  // Beyond 2^53 two integers still compare exactly, not as the same double.
  EXPECT_EQ(integer("9007199254740993 > 9007199254740992"), 1);
  EXPECT_EQ(integer("9007199254740993 == 9007199254740992"), 0);
}

TEST(Expression, LogicTreatsEveryNonZeroAsTrue) {
  EXPECT_EQ(integer("-1 && 2"), 1);
  EXPECT_EQ(integer("0.5 && 1"), 1);
  EXPECT_EQ(integer("0 || 0"), 0);
  EXPECT_EQ(integer("0 && 1"), 0);
  EXPECT_EQ(integer("1 && 0"), 0);
  EXPECT_EQ(integer("3 || 0"), 1);  // 1, not the operand's value
}

TEST(Expression, DividesIntegersByTruncationAndTakesRemainders) {
  EXPECT_EQ(integer("7 / 2"), 3);
  EXPECT_EQ(integer("-7 / 2"), -3);
  EXPECT_EQ(integer("7 % 3"), 1);
  EXPECT_EQ(integer("M % 1000"), 96);
}

TEST(Expression, ProvidesCdivMinAndMax) {
  EXPECT_EQ(integer("cdiv(N, 256)"), 4);
  EXPECT_EQ(integer("cdiv(N + 1, 256)"), 5);
  EXPECT_EQ(integer("cdiv(-7, 2)"), -3);
  EXPECT_EQ(integer("cdiv(-7, -2)"), 4);
  EXPECT_EQ(integer("cdiv(7, -2)"), -3);
  EXPECT_EQ(integer("cdiv(1024, 256)"), 4);  // exact: no extra block
  EXPECT_EQ(integer("cdiv(1025, 256)"), 5);
  EXPECT_EQ(integer("cdiv(0, 256)"), 0);
  EXPECT_EQ(integer("cdiv(7, 2.0)"), 4);     // floating: the ceiling of 3.5
  EXPECT_EQ(integer("min(3, 2.5) * 2"), 5);  // min keeps the smaller operand's type
  EXPECT_EQ(integer("max(-1, -2)"), -1);
  EXPECT_EQ(integer("min(M, N)"), 1024);
  EXPECT_EQ(integer("max(M, N) * 2"), 8192);
  EXPECT_EQ(integer("min(max(1, 5), 3)"), 3);
}

TEST(Expression, FloorAndCeilRoundDecimalsToIntegers) {
  const Dims dims = {{"N", std::int64_t{1000}}, {"ratio", 0.75}};
  Number floored = Expression::parse("floor(N * ratio / 7)").evaluate(dims);  // 107.14...
  ASSERT_TRUE(std::holds_alternative<std::int64_t>(floored));  // an integer: exact arithmetic follows
  EXPECT_EQ(std::get<std::int64_t>(floored), 107);
  EXPECT_EQ(integer("ceil(N * ratio / 7)", dims), 108);
  EXPECT_EQ(integer("floor(-3.5)"), -4);  // toward minus infinity, unlike integer division
  EXPECT_EQ(integer("ceil(-3.5)"), -3);
  EXPECT_EQ(integer("floor(2.0)"), 2);
  EXPECT_EQ(integer("floor(7 / 2)"), 3);  // 7/2 is already the integer 3
  EXPECT_EQ(integer("ceil(7 / 2)"), 3);
  EXPECT_EQ(integer("ceil(7 / 2.0)"), 4);
  EXPECT_EQ(integer("floor(M * alpha) * K"), 2048 * 512);
  EXPECT_THAT(expression_error_of("floor(1e30)"), HasSubstr("floor(1e+30) does not fit in 64 bits"));
}

TEST(Expression, ComparisonsAndLogicGiveOneOrZero) {
  EXPECT_EQ(integer("M*N <= 16384"), 0);
  EXPECT_EQ(integer("K*2 == N"), 1);
  EXPECT_EQ(integer("K != N"), 1);
  EXPECT_EQ(integer("1 < 2 && 3 >= 3"), 1);
  EXPECT_EQ(integer("0 || 2 > 1"), 1);
  EXPECT_EQ(integer("!0"), 1);
  EXPECT_EQ(integer("!(M > N)"), 0);
  EXPECT_EQ(integer("1 + 1 == 2"), 1);   // arithmetic binds tighter than comparison
  EXPECT_EQ(integer("1 || 0 && 0"), 1);  // && binds tighter than ||
}

TEST(Expression, LogicShortCircuitsLikeC) {
  EXPECT_EQ(integer("0 && M / 0"), 0);
  EXPECT_EQ(integer("1 || Q"), 1);
}

TEST(Expression, DecimalOperandsMakeTheArithmeticFloating) {
  EXPECT_DOUBLE_EQ(floating("0.5 * 3"), 1.5);
  EXPECT_DOUBLE_EQ(floating("alpha * N"), 512.0);
  EXPECT_DOUBLE_EQ(floating("1e3"), 1000.0);
  EXPECT_DOUBLE_EQ(floating("7 / 2.0"), 3.5);
  EXPECT_DOUBLE_EQ(floating(".25 + 1"), 1.25);
  EXPECT_EQ(integer("0.5 < 1"), 1);
}

TEST(Expression, AcceptsWholeFloatingResultsAsIntegers) {
  EXPECT_EQ(integer("1e6"), 1000000);
  EXPECT_EQ(integer("N * 0.5"), 512);
  EXPECT_THAT([] { integer("3 * 0.5"); }, ::testing::Throws<Error>());
  try {
    integer("3 * 0.5");
  } catch (const Error& error) {
    EXPECT_THAT(error.what(), HasSubstr("gives 1.5, not an integer"));
  }
}

TEST(Expression, ListsTheNamesItReadsSortedAndUnique) {
  EXPECT_THAT(Expression::parse("N*M + cdiv(N, BM) > K").names(), ElementsAre("BM", "K", "M", "N"));
  EXPECT_TRUE(Expression::parse("2 + 2").names().empty());
  EXPECT_EQ(Expression::parse(" M * K ").text(), " M * K ");
}

TEST(Expression, ReportsIntegerOverflowInsteadOfWrapping) {
  Dims huge = {{"N", std::int64_t{1} << 40}};
  EXPECT_THAT(expression_error_of("N*N", huge),
              HasSubstr("expression \"N*N\": integer overflow in 1099511627776 * 1099511627776"));
  EXPECT_THAT(expression_error_of("9223372036854775807 + 1"), HasSubstr("integer overflow"));
  EXPECT_THAT(expression_error_of("-9223372036854775807 - 2"), HasSubstr("integer overflow"));
  EXPECT_THAT(expression_error_of("99999999999999999999"), HasSubstr("does not fit in 64 bits"));
  EXPECT_THAT(expression_error_of("1e308 * 10"), HasSubstr("is not finite"));
}

TEST(Expression, ReportsDivisionByZero) {
  EXPECT_THAT(expression_error_of("M / (N - 1024)"), HasSubstr("expression \"M / (N - 1024)\": division by zero"));
  EXPECT_THAT(expression_error_of("M % 0"), HasSubstr("division by zero"));
  EXPECT_THAT(expression_error_of("1.5 / 0"), HasSubstr("division by zero"));
  EXPECT_THAT(expression_error_of("cdiv(M, 0)"), HasSubstr("division by zero"));
}

TEST(Expression, NamesAnUnknownDimAndTheKnownOnes) {
  EXPECT_THAT(expression_error_of("M*Q"), HasSubstr("expression \"M*Q\": unknown dim \"Q\" (known: K, M, N, alpha)"));
  EXPECT_THAT(expression_error_of("Q", {}), HasSubstr("unknown dim \"Q\" (no dims are defined)"));
}

TEST(Expression, RejectsMalformedTextWithItsColumn) {
  EXPECT_THAT(expression_error_of("M*"), HasSubstr("cannot parse expression \"M*\": expected a number, a name or \"(\" "
                                        "but the text ends at column 3"));
  EXPECT_THAT(expression_error_of("(M"), HasSubstr("expected \")\""));
  EXPECT_THAT(expression_error_of("M N"), HasSubstr("unexpected \"N\" at column 3"));
  EXPECT_THAT(expression_error_of("BM = 64"), HasSubstr("unexpected \"=\""));
  EXPECT_THAT(expression_error_of("sqrt(M)"), HasSubstr("unknown function \"sqrt\" (known: cdiv, ceil, floor, max, min)"));
  EXPECT_THAT(expression_error_of("floor(M, N)"), HasSubstr("floor() takes 1 argument, not 2 at column 1"));
  EXPECT_THAT(expression_error_of("min(M)"), HasSubstr("min() takes 2 arguments, not 1"));
  EXPECT_THAT(expression_error_of(""), HasSubstr("the text ends"));
}

TEST(Expression, FormatsNumbersSoFloatsStayFloats) {
  EXPECT_EQ(to_string(Number{std::int64_t{4096}}), "4096");
  EXPECT_EQ(to_string(Number{0.5}), "0.5");
  EXPECT_EQ(to_string(Number{2.0}), "2.0");
  EXPECT_EQ(to_double(Number{std::int64_t{3}}), 3.0);
}

}  // namespace
}  // namespace kopt::spec
