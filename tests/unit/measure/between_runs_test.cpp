#include <gtest/gtest.h>

#include "kopt/measure/bench.hpp"
#include "kopt/measure/between_runs.hpp"
#include "kopt/report/bench_table.hpp"

namespace kopt::measure {
namespace {

VariantReport timed_variant(const std::string& label, const std::string& case_name, double median_seconds) {
  VariantReport v{.label = label, .case_name = case_name};
  v.summary.median = median_seconds;
  v.summary.count = 100;
  v.samples.stop_reason = "median_precise";
  return v;
}

const BetweenRunsRule kRule{.below_seconds = 20e-6, .largest_spread = 0.042, .measured = "a 7 µs kernel"};

TEST(BetweenRunsRule, TheShippedFileSaysAShortBoundAndTheSpreadMeasuredUnderIt) {
  const BetweenRunsRule& rule = between_runs_rule();
  EXPECT_GT(rule.below_seconds, 0);
  EXPECT_LT(rule.below_seconds, 93e-6);  // the 93 µs medians moved 0.14-0.31 %: not short
  EXPECT_GE(rule.largest_spread, 0.031);  // the H200's 3.1 % and the H100's 4.2 % were both seen
  EXPECT_FALSE(rule.measured.empty());
}

TEST(BetweenRunsNote, NamesEveryShortVariantAndNoLongOne) {
  BenchReport report;
  report.variants = {timed_variant("base.cu", "default", 6.8e-6), timed_variant("base.cu", "large", 92.9e-6),
                     timed_variant("reference", "default", 7.1e-6)};
  const std::optional<std::string> note = between_runs_note(report, kRule);
  ASSERT_TRUE(note.has_value());
  EXPECT_NE(note->find("base.cu (case default), reference (case default): medians under 20 µs moved by up to 4.2 %"),
            std::string::npos)
      << *note;
  EXPECT_EQ(note->find("large"), std::string::npos) << *note;
  EXPECT_NE(note->find("kopt compare"), std::string::npos) << *note;
}

TEST(BetweenRunsNote, NoneWhenEveryMedianIsLongOrUnmeasured) {
  BenchReport report;
  report.variants = {timed_variant("vector_add.cu", "default", 229e-6), timed_variant("broken.cu", "default", 0)};
  EXPECT_FALSE(between_runs_note(report, kRule).has_value());
  EXPECT_FALSE(between_runs_note(BenchReport{}, kRule).has_value());
}

TEST(BetweenRunsNote, TheTableAndTheJsonCarryItAsANoteNotAWarning) {
  BenchReport report;
  report.mode = "cold";
  report.device = {{"name", "NVIDIA H100 80GB HBM3"}};
  report.variants = {timed_variant("base.cu", "default", 6.8e-6)};
  report.notes.push_back(*between_runs_note(report, kRule));
  const std::string table = report::format_bench_report(report);
  EXPECT_NE(table.find("\nnote: base.cu (case default): medians under 20 µs"), std::string::npos) << table;
  EXPECT_EQ(table.find("WARN:"), std::string::npos) << table;
  EXPECT_TRUE(report.passed());
  const nlohmann::json json = bench_report_to_json(report);
  ASSERT_EQ(json.at("notes").size(), 1u);
  EXPECT_TRUE(json.at("warnings").empty());
}

}  // namespace
}  // namespace kopt::measure
