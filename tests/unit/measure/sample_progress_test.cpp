#include "kopt/measure/sample_progress.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace kopt::measure {
namespace {

using namespace std::chrono_literals;

struct Recorder {
  std::vector<std::string> lines;
  ManualClock clock;
  SampleProgress progress(std::string case_name, std::size_t variants) {
    return SampleProgress(std::move(case_name), variants, [this](const std::string& l) { lines.push_back(l); }, clock);
  }
};

TEST(SampleProgress, CountsTheSamplesOfOneVariant) {
  Recorder r;
  SampleProgress progress = r.progress("default", 1);
  for (int i = 0; i < 140; ++i) progress.sampled("b3", false);
  EXPECT_EQ(progress.line(), "case default: measuring b3: 140 samples");
}

TEST(SampleProgress, CountsAllInterleavedVariantsAndThoseStillSampling) {
  Recorder r;
  SampleProgress progress = r.progress("N=4099", 3);
  for (int round = 0; round < 10; ++round) {
    progress.sampled("best", false);
    progress.sampled("iter1/b1", round == 9);
    progress.sampled("iter1/b2", false);
  }
  EXPECT_EQ(progress.line(), "case N=4099: measuring 3 variants: 30 samples, 2 still sampling");
}

TEST(SampleProgress, ReportsAtMostFourTimesASecond) {
  Recorder r;
  SampleProgress progress = r.progress("default", 2);
  for (int i = 0; i < 1000; ++i) {  // a sample every millisecond for a second
    progress.sampled(i % 2 == 0 ? "a" : "b", false);
    r.clock.advance(1ms);
  }
  EXPECT_EQ(r.lines.size(), 4u);
  EXPECT_EQ(r.lines.front(), "case default: measuring 2 variants: 1 samples, 2 still sampling");
}

}  // namespace
}  // namespace kopt::measure
