#include <cmath>
#include <limits>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "kopt/spec/problem_spec.hpp"
#include "spec_test_support.hpp"

namespace kopt::spec {
namespace {

using ::testing::HasSubstr;

TEST(InitSpec, ParsesEverySpelling) {
  InitSpec normal = InitSpec::parse("normal");
  EXPECT_EQ(normal.kind, InitKind::normal);
  EXPECT_EQ(normal.b, 1);
  InitSpec shifted = InitSpec::parse(" normal( 1.5 , 0.25 ) ");
  EXPECT_EQ(shifted.a, 1.5);
  EXPECT_EQ(shifted.b, 0.25);
  EXPECT_EQ(InitSpec::parse("uniform(-1,1)").kind, InitKind::uniform);
  InitSpec integers = InitSpec::parse("int(0,99)");
  EXPECT_EQ(integers.kind, InitKind::integers);
  EXPECT_EQ(integers.b, 99);
  EXPECT_EQ(InitSpec::parse("zeros").kind, InitKind::zeros);
  EXPECT_EQ(InitSpec::parse("ones").kind, InitKind::ones);
}

TEST(InitSpec, WritesTextThatParsesBack) {
  for (std::string_view text :
       {"normal", "normal(1.5,0.25)", "uniform(-1,1)", "int(0,99)", "int(-5,-5)", "zeros", "ones", "full(2.5)",
        "full(-3)", "full(1e-09)", "values(16,128,-2.5)", "values(7)", "sorted(uniform(-1,1))",
        "sorted(int(0,9))", "tril(uniform(-1,1),4)", "triu(normal,2)", "choice(-1,1)", "choice(0,10,0.25)",
        "softmax(uniform(0,1),8)", "softmax(choice(0,10),4)", "plus_eye(normal(0,0.01),4,0.1)"}) {
    EXPECT_EQ(InitSpec::parse(text).text(), text);
  }
}

TEST(InitSpec, RejectsMalformedSpellingsQuotingThem) {
  auto init_error = [](std::string_view text) { return error_of([&] { InitSpec::parse(text); }); };
  EXPECT_THAT(init_error("gaussian"),
              HasSubstr("init \"gaussian\": expected normal, normal(mean,std), uniform(lo,hi)"));
  EXPECT_THAT(init_error("uniform(1)"), HasSubstr("expected normal"));
  EXPECT_THAT(init_error("uniform(1,x)"), HasSubstr("unknown dim \"x\" (no dims are defined)"));
  EXPECT_THAT(init_error("uniform(1,2*)"), HasSubstr("init \"uniform(1,2*)\": cannot parse expression \"2*\""));
  EXPECT_THAT(init_error("uniform(2,1)"), HasSubstr("needs lo < hi"));
  EXPECT_THAT(init_error("normal(0,0)"), HasSubstr("standard deviation must be > 0"));
  EXPECT_THAT(init_error("int(0.5,3)"), HasSubstr("whole numbers"));
  EXPECT_THAT(init_error("zeros(1,2)"), HasSubstr("expected normal"));
  EXPECT_THAT(init_error("int(0,3"), HasSubstr("expected normal"));
  EXPECT_THAT(init_error("int(0,3]"), HasSubstr("expected normal"));
  EXPECT_THAT(init_error("uniform[0,1)"), HasSubstr("expected normal"));
  EXPECT_THAT(init_error("int[3,3)"), HasSubstr("int[lo,hi) needs lo < hi (they are 3 and 3)"));
  EXPECT_THAT(init_error("int(4,3)"), HasSubstr("needs lo <= hi"));
  EXPECT_THAT(init_error("int(0,1e300)"), HasSubstr("within +-2^53"));
}

// full(v): one value everywhere, a suite's edge case ([2.0] * 30); its value may read the dims.
TEST(InitSpec, FullIsOneValueEverywhere) {
  InitSpec two = InitSpec::parse("full(2.0)");
  EXPECT_EQ(two.kind, InitKind::full);
  EXPECT_EQ(two.a, 2.0);
  EXPECT_EQ(two.b, 2.0);
  EXPECT_EQ(InitFormula::parse("full(N - 1)").bind({{"N", Number{std::int64_t{8}}}}).a, 7);
  auto init_error = [](std::string_view text) { return error_of([&] { InitSpec::parse(text); }); };
  EXPECT_THAT(init_error("full"), HasSubstr("expected normal"));
  EXPECT_THAT(init_error("full(1,2)"), HasSubstr("or full(value)"));
  EXPECT_THAT(init_error("full(1e308*10)"), HasSubstr("is not finite"));
}

// values(v0, v1, ...): one literal value per element (a suite's literal data, a shape array),
// each an expression of the dims, so one spec lists each case's own shape.
TEST(InitSpec, ValuesListOneValuePerElement) {
  InitSpec listed = InitSpec::parse("values(1.0, -2, 3.5)");
  EXPECT_EQ(listed.kind, InitKind::values);
  EXPECT_EQ(listed.values, (std::vector<double>{1.0, -2, 3.5}));
  InitFormula shape = InitFormula::parse("values(B, min(N, 4), N * 2)");
  EXPECT_EQ(shape.bind({{"B", Number{std::int64_t{16}}}, {"N", Number{std::int64_t{8}}}}).values,
            (std::vector<double>{16, 4, 16}));
  auto init_error = [](std::string_view text) { return error_of([&] { InitSpec::parse(text); }); };
  EXPECT_THAT(init_error("values"), HasSubstr("or values(v0,v1,...)"));
  EXPECT_THAT(init_error("values(1, 1e308*10)"), HasSubstr("is not finite"));
}

// values(...) may hold inf, -inf and nan (a suite's edge data, max pooling over -inf), spelled
// as kopt writes them back; an expression still never evaluates to one.
TEST(InitSpec, ValuesHoldNonFiniteWordsAndWriteThemBack) {
  InitSpec listed = InitSpec::parse("values(1e6, inf, -inf, +inf, nan, -1e-06)");
  ASSERT_EQ(listed.values.size(), 6u);
  EXPECT_EQ(listed.values[1], std::numeric_limits<double>::infinity());
  EXPECT_EQ(listed.values[2], -std::numeric_limits<double>::infinity());
  EXPECT_EQ(listed.values[3], std::numeric_limits<double>::infinity());
  EXPECT_TRUE(std::isnan(listed.values[4]));
  EXPECT_EQ(listed.text(), "values(1000000,inf,-inf,inf,nan,-1e-06)");
  EXPECT_EQ(InitSpec::parse(listed.text()).text(), listed.text());
  auto init_error = [](std::string_view text) { return error_of([&] { InitSpec::parse(text); }); };
  EXPECT_THAT(init_error("full(inf)"), HasSubstr("unknown"));  // only values(...) reads the words
  EXPECT_THAT(init_error("values(1, inf * 2)"), HasSubstr("unknown"));
}

// sorted(F): a random fill's values in ascending order (a suite's torch.sort of random data).
TEST(InitSpec, SortedWrapsARandomFill) {
  InitSpec merged = InitFormula::parse("sorted(uniform(-1, N))").bind({{"N", Number{std::int64_t{4}}}});
  EXPECT_EQ(merged.kind, InitKind::uniform);
  EXPECT_TRUE(merged.arrangement == Arrangement::sorted && merged.host_written());
  EXPECT_EQ(merged.b, 4);
  EXPECT_EQ(InitSpec::parse("sorted(int[0, 10))").text(), "sorted(int(0,9))");
  auto init_error = [](std::string_view text) { return error_of([&] { InitSpec::parse(text); }); };
  EXPECT_THAT(init_error("sorted(zeros)"), HasSubstr("sorted(...) takes a random fill"));
  EXPECT_THAT(init_error("sorted(normal, normal)"), HasSubstr("expected sorted(FILL)"));
  EXPECT_THAT(init_error("sorted(gaussian)"), HasSubstr("init \"gaussian\": expected normal"));
}

// tril(F, n) / triu(F, n): a random fill with each n x n matrix's other triangle zeroed; n an
// expression of the dims.
TEST(InitSpec, TriangleWrapsARandomFillWithItsRowLength) {
  InitSpec lower = InitFormula::parse("tril(int[0, 10), n)").bind({{"n", Number{std::int64_t{8}}}});
  EXPECT_EQ(lower.arrangement, Arrangement::lower_triangle);
  EXPECT_EQ(lower.width, 8);
  EXPECT_EQ(lower.text(), "tril(int(0,9),8)");
  auto init_error = [](std::string_view text) { return error_of([&] { InitSpec::parse(text); }); };
  EXPECT_THAT(init_error("tril(uniform(-1,1))"), HasSubstr("expected tril(FILL, n)"));
  EXPECT_THAT(init_error("triu(ones, 4)"), HasSubstr("triu(...) takes a random fill"));
  EXPECT_THAT(init_error("tril(normal, 0)"), HasSubstr("the row length must be > 0"));
}

// choice(a, b) and choice(a, b, p): two values, b with probability p (0.5 by default).
TEST(InitSpec, ChoiceTakesTwoValuesAndAProbability) {
  InitSpec signs = InitSpec::parse("choice(-1, 1)");
  EXPECT_EQ(signs.kind, InitKind::choice);
  EXPECT_EQ(signs.a, -1);
  EXPECT_EQ(signs.b, 1);
  EXPECT_EQ(signs.probability, 0.5);
  InitSpec sparse = InitFormula::parse("choice(0, 10, 1 - 0.5*0.5)").bind({});
  EXPECT_EQ(sparse.probability, 0.75);
  auto init_error = [](std::string_view text) { return error_of([&] { InitSpec::parse(text); }); };
  EXPECT_THAT(init_error("choice(1)"), HasSubstr("choice(a,b) or choice(a,b,p)"));
  EXPECT_THAT(init_error("choice(0, 1, 1)"), HasSubstr("strictly between 0 and 1"));
  EXPECT_THAT(init_error("choice(0, 1e308*10)"), HasSubstr("finite"));
}

// softmax(F, n) and plus_eye(F, n, v): n and v expressions of the dims.
TEST(InitSpec, SoftmaxAndPlusEyeWrapARandomFill) {
  const Dims dims{{"n", Number{std::int64_t{16}}}};
  InitSpec rows = InitFormula::parse("softmax(uniform(0, 1), n)").bind(dims);
  EXPECT_EQ(rows.arrangement, Arrangement::softmax);
  EXPECT_EQ(rows.width, 16);
  EXPECT_TRUE(rows.host_written());
  InitSpec eye = InitFormula::parse("plus_eye(normal(0, 0.01), n, 0.1)").bind(dims);
  EXPECT_EQ(eye.arrangement, Arrangement::plus_eye);
  EXPECT_EQ(eye.width, 16);
  EXPECT_EQ(eye.diagonal, 0.1);
  EXPECT_EQ(eye.text(), "plus_eye(normal(0,0.01),16,0.1)");
  auto init_error = [](std::string_view text) { return error_of([&] { InitSpec::parse(text); }); };
  EXPECT_THAT(init_error("plus_eye(normal, 4)"), HasSubstr("expected plus_eye(FILL, n, v)"));
  EXPECT_THAT(init_error("softmax(ones, 4)"), HasSubstr("takes a random fill"));
  EXPECT_THAT(init_error("softmax(sorted(normal), 4)"), HasSubstr("not an arranged one"));
}

TEST(InitSpec, ReadsIntegerRangesInclusiveUnlessHalfOpen) {
  InitSpec inclusive = InitSpec::parse("int(0,10)");
  EXPECT_EQ(inclusive.a, 0);
  EXPECT_EQ(inclusive.b, 10);  // 10 is drawn
  InitSpec bracketed = InitSpec::parse("int[0,10]");
  EXPECT_EQ(bracketed.b, 10);
  InitSpec half_open = InitSpec::parse("int[0, 10)");  // as torch.randint(0, 10)
  EXPECT_EQ(half_open.kind, InitKind::integers);
  EXPECT_EQ(half_open.a, 0);
  EXPECT_EQ(half_open.b, 9);  // 10 is not
  EXPECT_EQ(half_open.text(), "int(0,9)");
  EXPECT_EQ(InitSpec::parse("int[-5,-4)").text(), "int(-5,-5)");  // one value
}

TEST(InitFormula, EvaluatesBoundsOverEachCasesDims) {
  InitFormula bins = InitFormula::parse("int[0, num_bins)");
  EXPECT_EQ(bins.text(), "int[0, num_bins)");
  EXPECT_THAT(bins.names(), ::testing::ElementsAre("num_bins"));
  InitSpec small = bins.bind({{"num_bins", std::int64_t{16}}});
  EXPECT_EQ(small.a, 0);
  EXPECT_EQ(small.b, 15);
  EXPECT_EQ(bins.bind({{"num_bins", std::int64_t{256}}}).b, 255);
  InitSpec nested = InitFormula::parse("int(-min(N, 8), max(N, 8) - 1)").bind({{"N", std::int64_t{4}}});
  EXPECT_EQ(nested.a, -4);
  EXPECT_EQ(nested.b, 7);
  InitSpec scaled = InitFormula::parse("uniform(-1/sqrtK, 1/sqrtK)").bind({{"sqrtK", 4.0}});
  EXPECT_EQ(scaled.a, -0.25);
  EXPECT_EQ(scaled.b, 0.25);
  EXPECT_THAT(error_of([&] { bins.bind({{"num_bins", std::int64_t{0}}}); }),
              HasSubstr("init \"int[0, num_bins)\": int[lo,hi) needs lo < hi (they are 0 and 0)"));
  EXPECT_THAT(error_of([&] { bins.bind({{"N", std::int64_t{1}}}); }),
              HasSubstr("init \"int[0, num_bins)\": expression \"num_bins\": unknown dim \"num_bins\" (known: N)"));
  EXPECT_THAT(error_of([&] { bins.bind({{"num_bins", 2.5}}); }), HasSubstr("takes whole numbers"));
}

}  // namespace
}  // namespace kopt::spec
