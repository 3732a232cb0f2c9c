#include "kopt/catalog/trigger.hpp"

#include <gtest/gtest.h>

#include "kopt/core/error.hpp"

namespace kopt::catalog {
namespace {

Facts sgemm_like() {
  Facts facts;
  facts.set("stall_long_scoreboard", 0.66);
  facts.set("l1_hit_rate", 0.89);
  facts.set("fp32_pipe", 0.10);
  facts.set("tensor_pipe", std::nullopt);  // known concept, not collected
  facts.set("bound", std::string("memory"));
  facts.set("spec.fp32_exact", true);
  facts.set("arch", 90.0);
  return facts;
}

Truth truth(std::string_view text, const Facts& facts = sgemm_like()) {
  return Condition::parse(text).evaluate(facts).truth;
}

TEST(Trigger, ComparesConceptsWithNumbersAndWords) {
  EXPECT_EQ(truth("stall_long_scoreboard > 0.3"), Truth::yes);
  EXPECT_EQ(truth("fp32_pipe >= 0.5"), Truth::no);
  EXPECT_EQ(truth("bound == 'memory'"), Truth::yes);
  EXPECT_EQ(truth("bound != \"compute\""), Truth::yes);
  EXPECT_EQ(truth("arch >= 80 and spec.fp32_exact"), Truth::yes);
  EXPECT_EQ(truth("l1_hit_rate > stall_long_scoreboard"), Truth::yes);
}

TEST(Trigger, ComparisonsHoldExactlyAtTheirThreshold) {
  EXPECT_EQ(truth("fp32_pipe <= 0.10"), Truth::yes);
  EXPECT_EQ(truth("fp32_pipe >= 0.10"), Truth::yes);
  EXPECT_EQ(truth("fp32_pipe < 0.10"), Truth::no);
  EXPECT_EQ(truth("fp32_pipe > 0.10"), Truth::no);
  EXPECT_EQ(truth("fp32_pipe == 0.10"), Truth::yes);
  EXPECT_EQ(truth("fp32_pipe != 0.10"), Truth::no);
  EXPECT_EQ(truth("arch <= 89"), Truth::no);
}

TEST(Trigger, AndBindsTighterThanOrAndNotNegates) {
  EXPECT_EQ(truth("fp32_pipe > 0.5 and l1_hit_rate > 0.5 or arch == 90"), Truth::yes);
  EXPECT_EQ(truth("fp32_pipe > 0.5 and (l1_hit_rate > 0.5 or arch == 90)"), Truth::no);
  EXPECT_EQ(truth("not spec.fp32_exact"), Truth::no);
  EXPECT_EQ(truth("not not spec.fp32_exact"), Truth::yes);
}

TEST(Trigger, AMissingConceptIsUnknownNeverZero) {
  // Read as 0, `tensor_pipe < 0.3` would hold; missing, it is unknown, and so is its negation.
  Evaluation e = Condition::parse("tensor_pipe < 0.3").evaluate(sgemm_like());
  EXPECT_EQ(e.truth, Truth::unknown);
  EXPECT_EQ(e.missing, (std::set<std::string>{"tensor_pipe"}));
  EXPECT_EQ(truth("not tensor_pipe < 0.3"), Truth::unknown);
  EXPECT_EQ(truth("undeclared_name > 1"), Truth::unknown);
}

TEST(Trigger, KleeneLogicDecidesWhatTheKnownPartsDecide) {
  EXPECT_EQ(truth("tensor_pipe < 0.3 and fp32_pipe > 0.5"), Truth::no);
  EXPECT_EQ(truth("tensor_pipe < 0.3 or fp32_pipe < 0.5"), Truth::yes);
  EXPECT_EQ(truth("tensor_pipe < 0.3 and fp32_pipe < 0.5"), Truth::unknown);
}

TEST(Trigger, ReportsTheValuesItRead) {
  Evaluation e = Condition::parse("stall_long_scoreboard > 0.3 and l1_hit_rate > 0.5").evaluate(sgemm_like());
  ASSERT_EQ(e.used.size(), 2u);
  EXPECT_EQ(format_fact(e.used.at("stall_long_scoreboard")), "0.66");
  EXPECT_EQ(Condition::parse("a > 1 or (b.c < 2 and not d)").names(), (std::set<std::string>{"a", "b.c", "d"}));
}

TEST(Trigger, RejectsMalformedConditionsWithTheColumn) {
  for (const char* text : {"", "x >", "x > 0.3 and", "(x > 1", "x = 1", "x > 1)", "0.3 > 0.2", "x < 'word'", "x >> 1",
                           "x > 1 y"}) {
    EXPECT_THROW(Condition::parse(text), Error) << text;
  }
  try {
    Condition::parse("x > 0.3 and and y");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("column 13"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace kopt::catalog
