// set(FILL, v, SELECTOR...), cat(FILL:n, ...) and halves(FILL, n): spellings, binding per case,
// and the refusals (docs/check.md).
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "kopt/spec/problem_spec.hpp"
#include "spec_test_support.hpp"

namespace kopt::spec {
namespace {

using ::testing::HasSubstr;

TEST(InitWrites, WritesTextThatParsesBack) {
  for (std::string_view text :
       {"set(zeros,1,0)", "set(int(0,1),0,0,-1,0::500:10)", "set(zeros,1,0,256::256)", "set(zeros,1,0,walk(8,1,17))",
        "set(set(normal,2,3),-1,1:4)", "set(uniform(-1,1),0.5,:7,-2:)", "halves(normal,128)",
        "cat(uniform(0.8,1.2):768,zeros:2304,normal(0,0.02):10)", "set(cat(ones:2,zeros:3),7,4)"}) {
    EXPECT_EQ(InitSpec::parse(text).text(), text);
  }
}

// Each write's value and selectors, innermost first, the fill beneath them as it was.
TEST(InitWrites, BindsTheWritesInOrderOverTheFill) {
  const Dims dims{{"N", std::int64_t{1000}}, {"cols", std::int64_t{50}}};
  InitSpec grid = InitFormula::parse("set(set(int[0, 2), 0, 0, -1), 1, 0::cols:10, walk(8, 1, 2 * 8 + 1))").bind(dims);
  EXPECT_EQ(grid.kind, InitKind::integers);
  EXPECT_EQ(grid.b, 1);
  ASSERT_EQ(grid.writes.size(), 2u);
  EXPECT_EQ(grid.writes[0].value, 0);
  EXPECT_EQ(grid.writes[0].selectors.size(), 2u);
  EXPECT_EQ(*grid.writes[0].selectors[1].start, -1);
  const ElementSelector& columns = grid.writes[1].selectors[0];
  EXPECT_EQ(columns.kind, ElementSelector::Kind::slice);
  EXPECT_FALSE(columns.stop.has_value());
  EXPECT_EQ(columns.step, 50);
  EXPECT_EQ(columns.width, 10);
  EXPECT_EQ(grid.writes[1].selectors[1].kind, ElementSelector::Kind::walk);
  EXPECT_EQ(grid.writes[1].selectors[1].width, 17);
  EXPECT_TRUE(grid.host_written());
  EXPECT_EQ(grid.text(), "set(set(int(0,1),0,0,-1),1,0::50:10,walk(8,1,17))");
}

TEST(InitWrites, RefusesMalformedWritesQuotingThem) {
  auto init_error = [](std::string_view text) { return error_of([&] { InitSpec::parse(text); }); };
  EXPECT_THAT(init_error("set(zeros, 1)"), HasSubstr("expected set(FILL, v, SELECTOR...)"));
  EXPECT_THAT(init_error("set(zeros, 1, walk(0, 1))"), HasSubstr("walk(start, lo, hi) takes three numbers"));
  EXPECT_THAT(init_error("set(zeros, 1, walk(0, 3, 3))"), HasSubstr("needs start >= 0 and 1 <= lo < hi"));
  EXPECT_THAT(init_error("set(zeros, 1, 0:10:2:3)"), HasSubstr("needs 1 <= width <= step"));
  EXPECT_THAT(init_error("set(zeros, 1, 1:2:3:1:5)"), HasSubstr("a slice is start:stop[:step[:width]]"));
  EXPECT_THAT(init_error("set(zeros, 1e308*10, 0)"), HasSubstr("init \"set(zeros, 1e308*10, 0)\""));
  EXPECT_THAT(init_error("cat(normal:4, sorted(normal):4)"), HasSubstr("no fill drawn per element"));
  EXPECT_THAT(init_error("cat(normal)"), HasSubstr("expected cat(FILL:n, FILL:n, ...)"));
  EXPECT_THAT(init_error("cat(normal:0)"), HasSubstr("must hold elements"));
  EXPECT_THAT(init_error("halves(normal, 5)"), HasSubstr("needs an even n"));
  EXPECT_THAT(init_error("halves(set(normal, 0, 1), 4)"), HasSubstr("not an arranged one"));
}

// Binding knows the buffer's size: an index past it, a cat that does not add up to it and a
// value an integer buffer cannot hold are refused with the buffer and the case.
TEST(InitWrites, BindingChecksTheWritesAgainstTheBuffer) {
  constexpr std::string_view kernel = "extern \"C\" void solve(const int* x, int* y, int N) {}";
  const auto spec = [](std::string_view init) {
    return fmt::format("kernel = \"k.cu\"\n[dims]\nN = 8\n[buffers.x]\ninit = \"{}\"\n", init);
  };
  Problem fine = bind_problem(parse_text(spec("set(zeros, 1, -8, 7)")), signature_of(kernel));
  EXPECT_EQ(buffer(fine.cases[0], 0).init->text(), "set(zeros,1,-8,7)");
  EXPECT_THAT(bind_error(spec("set(zeros, 1, 8)"), kernel), HasSubstr("buffer x: init set(zeros,1,8) writes element 8 of 8"));
  EXPECT_THAT(bind_error(spec("set(zeros, 1, -9)"), kernel), HasSubstr("writes element -9 of 8"));
  EXPECT_THAT(bind_error(spec("set(zeros, 2.5, 0)"), kernel), HasSubstr("writes 2.5, which int32 does not hold"));
  EXPECT_THAT(bind_error(spec("cat(zeros:N, ones:1)"), kernel), HasSubstr("lays 9 elements for 8 in case \"default\""));
}

}  // namespace
}  // namespace kopt::spec
