#include "kopt/loop/flagged_outcomes.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace kopt::loop {
namespace {

using ::testing::HasSubstr;

measure::BenchReport bench_of(const std::vector<std::string>& labels, std::vector<std::string> flags) {
  measure::BenchReport bench;
  for (const std::string& label : labels) bench.variants.push_back({.label = label, .case_name = "default"});
  bench.flags = std::move(flags);
  return bench;
}

std::vector<VariantOutcome> passing(const std::vector<std::string>& labels) {
  std::vector<VariantOutcome> outcomes;
  for (const std::string& label : labels) outcomes.push_back({.label = label, .passed = true, .median = 1e-6});
  return outcomes;
}

// A flag that `kopt bench` raises for one variant (work waited for before the window, a
// sample the witness never saw) fails that variant in the loop too, and only that one; "b1"
// is not named by a flag of "b10".
TEST(FlaggedOutcomes, AFlagFailsTheVariantItNamesAndNoOther) {
  const auto bench = bench_of({"b1", "b10", "b2"}, {"b10 (case default): 12 of 40 samples were held by solve"});
  auto outcomes = passing({"b1", "b10", "b2"});
  fail_flagged_outcomes(bench, outcomes);
  EXPECT_TRUE(outcomes[0].passed);
  ASSERT_FALSE(outcomes[1].passed);
  EXPECT_THAT(outcomes[1].failure, HasSubstr("held by solve"));
  EXPECT_TRUE(outcomes[2].passed);
}

// The witness's channel written to, or samples claiming more time than the sampling took:
// any variant of the worker could have done it, so none of them is kept.
TEST(FlaggedOutcomes, AFlagThatNamesNoVariantFailsThemAll) {
  const auto bench = bench_of({"b1", "b2"}, {"the witness's channel carried 3 line(s) kopt's worker never writes"});
  auto outcomes = passing({"b1", "b2"});
  fail_flagged_outcomes(bench, outcomes);
  for (const VariantOutcome& o : outcomes) {
    ASSERT_FALSE(o.passed) << o.label;
    EXPECT_THAT(o.failure, HasSubstr("flagged while timed"));
  }
}

TEST(FlaggedOutcomes, WithoutFlagsEveryOutcomeStandsAndAFailureKeepsItsCause) {
  auto outcomes = passing({"b1", "b2"});
  outcomes[1] = {.label = "b2", .passed = false, .failure = "wrong result"};
  fail_flagged_outcomes(bench_of({"b1"}, {}), outcomes);
  EXPECT_TRUE(outcomes[0].passed);
  fail_flagged_outcomes(bench_of({"b1"}, {"samples written faster than they could have been taken"}), outcomes);
  EXPECT_FALSE(outcomes[0].passed);
  EXPECT_EQ(outcomes[1].failure, "wrong result");
}

}  // namespace
}  // namespace kopt::loop
