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

// The cost line says how many compiles ran side by side: a queue that built one at a time
// (4 compiles of 2 s: 8 s with a compile running, 8 s of compiles) reads "1.0 at once".
TEST(StageCosts, SayHowManyCompilesRanAtOnceWhereTheFileRecordsIt) {
  const nlohmann::json stages = {
      {"first_look", {{"wall_s", 12.0}, {"compile_s", 8.0}, {"compile_processes_s", 8.0}, {"device_s", 3.0},
                      {"candidates", 4}}},
      {"finals", {{"wall_s", 5.0}, {"compile_s", 2.0}, {"compile_processes_s", 7.0}, {"device_s", 3.0},
                  {"candidates", 2}}},
      {"ablation", {{"wall_s", 5.0}, {"compile_s", 1.0}, {"device_s", 4.0}, {"candidates", 1}}}};
  const std::string line = format_stage_costs(stages);
  EXPECT_THAT(line, HasSubstr("first look 4 in 12.0 s (compile 8.0 s, 1.0 at once, GPU 3.0 s), 80 per GPU-minute"));
  EXPECT_THAT(line, HasSubstr("finals 2 in 5.0 s (compile 2.0 s, 3.5 at once, GPU 3.0 s)"));
  EXPECT_THAT(line, HasSubstr("ablation 1 in 5.0 s (compile 1.0 s, GPU 4.0 s)"));  // an older file
  EXPECT_LT(line.find("first look"), line.find("finals"));  // in the order the stages ran
  EXPECT_EQ(format_stage_costs(nlohmann::json::object()), "no stage recorded");
  const nlohmann::json nothing_ablated = {
      {"ablation", {{"wall_s", 0.0}, {"compile_s", 0.0}, {"device_s", 0.0}, {"candidates", 0}}}};
  EXPECT_EQ(format_stage_costs(nothing_ablated), "no stage recorded");  // a stage of no candidates says nothing
}

TEST(IterationVerdict, EndsWithWhatItsStagesCost) {
  nlohmann::json verdict = {{"index", 1}, {"verdict", "no_improvement"}};
  verdict["time"]["stages"]["first_look"] = {{"wall_s", 6.0}, {"compile_s", 1.0}, {"device_s", 3.0}, {"candidates", 6}};
  EXPECT_EQ(format_iteration_verdict(verdict),
            "iteration 1: no_improvement\n  cost: first look 6 in 6.0 s (compile 1.0 s, GPU 3.0 s), 120 per GPU-minute\n");
}

}  // namespace
}  // namespace kopt::report
