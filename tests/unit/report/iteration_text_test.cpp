#include "kopt/report/iteration_text.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace kopt::report {
namespace {
using ::testing::HasSubstr;

TEST(IterationVerdict, NamesTheChampionItsIntervalAndEachMethodsClass) {
  const nlohmann::json verdict = {
      {"index", 2}, {"verdict", "advanced"}, {"champion", "b3"}, {"speedup_vs_best", 1.25},
      {"speedup_vs_best_ci", {1.2, 1.3}},
      {"methods", {{{"id", "memory.vectorized_access"}, {"class", "effective"}, {"time_ratio_without", 1.08}},
                   {{"id", "latency.grid_stride_loop"}, {"class", "not_ablated"}}}}};
  const std::string text = format_iteration_verdict(verdict);
  EXPECT_THAT(text, HasSubstr("iteration 2: advanced — champion b3 is 1.250× the best [1.200, 1.300]\n"));
  EXPECT_THAT(text, HasSubstr("memory.vectorized_access"));
  EXPECT_THAT(text, HasSubstr("effective  (without it: 1.080× the time)\n"));
  EXPECT_THAT(text, HasSubstr("not_ablated\n"));
}

TEST(IterationVerdict, AnIterationWithoutAChampionIsOneLine) {
  EXPECT_EQ(format_iteration_verdict({{"index", 1}, {"verdict", "no_improvement"}}), "iteration 1: no_improvement\n");
}

}  // namespace
}  // namespace kopt::report
