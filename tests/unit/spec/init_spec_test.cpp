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
       {"normal", "normal(1.5,0.25)", "uniform(-1,1)", "int(0,99)", "zeros", "ones"}) {
    EXPECT_EQ(InitSpec::parse(text).text(), text);
  }
}

TEST(InitSpec, RejectsMalformedSpellingsQuotingThem) {
  auto init_error = [](std::string_view text) { return error_of([&] { InitSpec::parse(text); }); };
  EXPECT_THAT(init_error("gaussian"),
              HasSubstr("init \"gaussian\": expected normal, normal(mean,std), uniform(lo,hi)"));
  EXPECT_THAT(init_error("uniform(1)"), HasSubstr("expected normal"));
  EXPECT_THAT(init_error("uniform(1,x)"), HasSubstr("\"x\" is not a number"));
  EXPECT_THAT(init_error("uniform(2,1)"), HasSubstr("needs lo < hi"));
  EXPECT_THAT(init_error("normal(0,0)"), HasSubstr("standard deviation must be > 0"));
  EXPECT_THAT(init_error("int(0.5,3)"), HasSubstr("whole numbers"));
  EXPECT_THAT(init_error("zeros(1,2)"), HasSubstr("expected normal"));
  EXPECT_THAT(init_error("int(0,3"), HasSubstr("expected normal"));
}

}  // namespace
}  // namespace kopt::spec
