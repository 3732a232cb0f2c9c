#include "kopt/report/profile_table.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace kopt::report {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// A memory-bound point: 3.67e11 FLOP/s and `bytes_per_second` against 63.7 TFLOP/s and
// 4.236 TB/s, the H200 ceilings kopt doctor --peaks measured in the sixth session.
roofline::RooflineAnalysis memory_bound(double bytes_per_second, roofline::PeaksSource dram) {
  roofline::RooflineAnalysis a;
  a.sources.bytes_peak = dram;
  a.sources.flop_peak = roofline::PeaksSource::datasheet;
  a.inputs = {.achieved_flop_per_second = 3.67e11,
              .achieved_bytes_per_second = bytes_per_second,
              .peak_flop_per_second = 63.7e12,
              .peak_bytes_per_second = 4.236e12};
  a.point = roofline::place_on_roofline(a.inputs);
  a.compute_ceiling = "fp32";
  return a;
}

TEST(FormatRoofline, SaysWhenAKernelBeatsTheMeasuredCeiling) {
  const std::string text = format_roofline(memory_bound(4.311e12, roofline::PeaksSource::measured));
  EXPECT_THAT(text, HasSubstr("memory at 100% of its nearest ceiling"));
  // Which reading each utilization is, by name: the FLOP rate is not the SM throughput.
  EXPECT_THAT(text, HasSubstr("readings   compute: FLOP rate 1% of its ceiling, SM throughput 0%; memory: DRAM bytes "
                              "100% of its ceiling"));
  EXPECT_THAT(text, HasSubstr("above      DRAM traffic at 101.8% of the measured ceiling: that ceiling (a "
                              "device-to-device copy) understates"));
}

TEST(FormatRoofline, AboveADatasheetCeilingPointsAtTheWorkOrTheCounters) {
  const std::string text = format_roofline(memory_bound(5.0e12, roofline::PeaksSource::datasheet));
  EXPECT_THAT(text, HasSubstr("of the datasheet ceiling: check the spec's [work] bytes and the counters"));
}

TEST(FormatRoofline, NamesEachCeilingsOwnSource) {
  // DRAM measured, FP32 the datasheet's (a measurement that reached only the bandwidth).
  const std::string text = format_roofline(memory_bound(3.412e12, roofline::PeaksSource::measured));
  EXPECT_THAT(text, HasSubstr("ceilings   63.7 TFLOP/s fp32 (datasheet), 4.24 TB/s DRAM (measured)"));
}

TEST(FormatRoofline, NamesThePrecisionPolicyThatChoseTheComputeCeiling) {
  roofline::RooflineAnalysis a = memory_bound(3.412e12, roofline::PeaksSource::measured);
  a.compute_ceiling = "bf16_tensor";
  a.precision = "bf16";
  EXPECT_THAT(format_roofline(a), HasSubstr("bf16_tensor (datasheet), 4.24 TB/s DRAM (measured); precision bf16\n"));
}

TEST(FormatRoofline, SaysNothingMoreBelowTheCeiling) {
  EXPECT_THAT(format_roofline(memory_bound(3.412e12, roofline::PeaksSource::measured)), Not(HasSubstr("above")));
}

}  // namespace
}  // namespace kopt::report
