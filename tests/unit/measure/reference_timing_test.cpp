#include <gtest/gtest.h>

#include <regex>

#include "kopt/core/error.hpp"
#include "kopt/measure/bench.hpp"
#include "kopt/measure/reference_timing.hpp"
#include "kopt/report/bench_table.hpp"
#include "kopt/spec/dtype.hpp"

namespace kopt::measure {
namespace {

using nlohmann::json;

// What the runner writes for a torch reference on a GPU (python/kopt_reference_runner.py).
json timed_json(double seconds, std::size_t n = 20) {
  json gpu = json::array(), host = json::array();
  for (std::size_t i = 0; i < n; ++i) {
    gpu.push_back(seconds * (1 + 0.001 * static_cast<double>(i % 3)));
    host.push_back(seconds * 1.01);
  }
  return {{"backend", "torch"}, {"device", "cuda"}, {"interleaved", false}, {"timed", true}, {"mode", "cold"},
          {"l2_flush_bytes", 52428800}, {"first_call_seconds", 0.2}, {"samples_seconds", gpu},
          {"host_seconds", host}, {"stop_reason", "median_precise"}};
}

TEST(ReferenceTiming, TimedSamplesBecomeAReferenceVariantWithoutClockSamples) {
  ReferenceTiming t = reference_timing_from_json(timed_json(1e-3), "default");
  ASSERT_TRUE(t.timed);
  EXPECT_EQ(t.samples.label, "reference");
  EXPECT_EQ(t.samples.case_name, "default");
  EXPECT_EQ(t.samples.gpu_seconds.size(), 20u);
  EXPECT_EQ(t.samples.host_seconds.size(), 20u);
  EXPECT_TRUE(t.samples.sm_clock_mhz.empty());
  EXPECT_EQ(t.samples.stop_reason, "median_precise");
  EXPECT_DOUBLE_EQ(t.samples.first_call_seconds, 0.2);
}

TEST(ReferenceTiming, AssessingItNeedsNoClockSamples) {
  ReferenceTiming t = reference_timing_from_json(timed_json(1e-3), "default");
  VariantReport v{.label = "reference", .case_name = "default", .samples = t.samples, .bytes = 1e9,
                  .interleaved = false};
  assess_variant(v, DevicePeaks{.dram_bytes_per_second = 4.8e12}, spec::precision_named("fp32"), TimingMode::cold);
  EXPECT_EQ(v.summary.count, 20u);
  EXPECT_NEAR(v.summary.median, 1.001e-3, 1e-9);
  EXPECT_DOUBLE_EQ(v.median_sm_clock_mhz, 0);
  EXPECT_NEAR(v.median_host_gap_seconds, 1.01e-3 - 1.001e-3, 1e-9);
  EXPECT_FALSE(v.escapes_events);
  EXPECT_FALSE(v.below_floor);
}

TEST(ReferenceTiming, NumpyIsNotTimedAndGivesTheReason) {
  json timing = {{"backend", "numpy"}, {"device", "cpu"}, {"interleaved", false}, {"timed", false},
                 {"reason", "not timed: numpy reference runs on the CPU"}};
  ReferenceTiming t = reference_timing_from_json(timing, "N=12345");
  EXPECT_FALSE(t.timed);
  EXPECT_EQ(t.reason, "not timed: numpy reference runs on the CPU");
  EXPECT_TRUE(t.samples.gpu_seconds.empty());
}

TEST(ReferenceTiming, MalformedTimingIsAnInputError) {
  json missing = timed_json(1e-3);
  missing.erase("host_seconds");
  EXPECT_THROW(reference_timing_from_json(missing, "default"), Error);
  json uneven = timed_json(1e-3);
  uneven["host_seconds"].erase(0);
  EXPECT_THROW(reference_timing_from_json(uneven, "default"), Error);
  json empty = timed_json(1e-3, 0);
  EXPECT_THROW(reference_timing_from_json(empty, "default"), Error);
  EXPECT_THROW(reference_timing_from_json(json::object(), "default"), Error);
}

TEST(ReferenceTiming, RequestCarriesTheBenchSettings) {
  BenchSettings settings{.mode = TimingMode::warm};
  settings.stopping.min_samples = 25;
  json request = reference_time_request(settings, 50 << 20, 32e-9, 0.25);
  EXPECT_EQ(request["mode"], "warm");
  EXPECT_EQ(request["min_samples"], 25);
  EXPECT_EQ(request["l2_bytes"], 100 << 20);  // the read flush's buffer: twice the L2
  EXPECT_EQ(request["l2_flush"], "read");
  EXPECT_DOUBLE_EQ(request["target_half_width"].get<double>(), 0.0025);  // a quarter of the 1 % minimum effect
  EXPECT_DOUBLE_EQ(request["resolution_seconds"].get<double>(), 32e-9);
  EXPECT_DOUBLE_EQ(request["budget_seconds"].get<double>(), 0.25);
  EXPECT_DOUBLE_EQ(request["timeout_seconds"].get<double>(), 15);
}

BenchReport report_with_python_reference() {
  BenchReport report{.device = {{"name", "NVIDIA H200"}}, .mode = "cold"};
  VariantReport kernel{.label = "reduction.cu", .case_name = "default"};
  for (int i = 0; i < 20; ++i) kernel.samples.gpu_seconds.push_back(1e-3 * (1 + 0.001 * (i % 3)));
  kernel.samples.stop_reason = "median_precise";
  kernel.summary = summarize(kernel.samples.gpu_seconds);
  VariantReport reference{.label = "reference", .case_name = "default",
                          .samples = reference_timing_from_json(timed_json(2e-3), "default").samples,
                          .interleaved = false};
  reference.samples.stop_reason = "timeout";
  reference.summary = summarize(reference.samples.gpu_seconds);
  Comparison c = compare_samples(kernel.samples.gpu_seconds, reference.samples.gpu_seconds);
  report.verdicts.push_back({"default", kernel.label, reference.label, c, false});
  report.variants = {kernel, reference};
  report.untimed.push_back({"reference", "N=12345", "not timed: numpy reference runs on the CPU"});
  return report;
}

TEST(ReferenceTiming, JsonSaysTheReferenceWasNotInterleaved) {
  json out = bench_report_to_json(report_with_python_reference());
  EXPECT_EQ(out["variants"][1]["label"], "reference");
  EXPECT_EQ(out["variants"][1]["interleaved"], false);
  EXPECT_EQ(out["variants"][1]["sm_clock_mhz"], json::array());
  EXPECT_EQ(out["variants"][0]["interleaved"], true);
  EXPECT_EQ(out["verdicts"][0]["variant"], "reference");
  EXPECT_EQ(out["verdicts"][0]["verdict"], "slower");
  EXPECT_EQ(out["verdicts"][0]["interleaved"], false);
  EXPECT_EQ(out["untimed"][0]["reason"], "not timed: numpy reference runs on the CPU");
  EXPECT_FALSE(out["untimed"][0].contains("summary"));
}

TEST(ReferenceTiming, TableFlagsTheVerdictAndGivesTheReasonInsteadOfANumber) {
  std::string table = report::format_bench_report(report_with_python_reference());
  EXPECT_NE(table.find("slower x0."), std::string::npos) << table;
  EXPECT_NE(table.find("(not interleaved)"), std::string::npos) << table;
  EXPECT_NE(table.find("SM clock not measured"), std::string::npos) << table;
  EXPECT_NE(table.find("case N=12345"), std::string::npos) << table;
  EXPECT_TRUE(std::regex_search(table, std::regex("\n  reference +not timed: numpy reference runs on the CPU\n")))
      << table;
}

// A ratio that a flagged variant took part in is not printed as a verdict.
TEST(ReferenceTiming, AFlaggedPairGetsNoVerdictInTheTable) {
  BenchReport report = report_with_python_reference();
  report.flags.push_back("reference (case default): solve left host threads, processes or timers running");
  const std::string table = report::format_bench_report(report);
  EXPECT_NE(table.find("no verdict (flagged)"), std::string::npos) << table;
  EXPECT_EQ(table.find("slower x0."), std::string::npos) << table;
}

TEST(BenchPhases, TheTableSaysWhereTheTimeWentAndTheJsonKeepsIt) {
  BenchReport report = report_with_python_reference();
  EXPECT_EQ(report::format_bench_report(report).find("time: "), std::string::npos);  // not measured: no line
  report.phase_seconds = {.checks = 12.34, .timing = 2.0, .audit = 4.5, .python_reference = 1.25, .total = 20.1};
  const std::string table = report::format_bench_report(report);
  EXPECT_NE(table.find("time: checks 12.3 s, timing 2.0 s, audit of timed calls 4.5 s, .py reference 1.2 s; 20.1 s in all\n"),
            std::string::npos)
      << table;
  const json out = bench_report_to_json(report);
  EXPECT_DOUBLE_EQ(out["phase_seconds"]["checks"].get<double>(), 12.34);
  EXPECT_DOUBLE_EQ(out["phase_seconds"]["total"].get<double>(), 20.1);
}

}  // namespace
}  // namespace kopt::measure
