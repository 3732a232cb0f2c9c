#include "kopt/core/clock.hpp"

#include <gtest/gtest.h>

#include <regex>

namespace kopt {
namespace {

using namespace std::chrono_literals;

TEST(Stopwatch, CountsFromItsStartAndFromItsLastLap) {
  ManualClock clock;
  Stopwatch watch(clock);
  clock.advance(1.5s);
  EXPECT_DOUBLE_EQ(watch.lap(), 1.5);
  clock.advance(0.25s);
  double phase = 10;
  watch.lap(phase);  // a lap added to a phase's total
  EXPECT_DOUBLE_EQ(phase, 10.25);
  clock.advance(2s);
  EXPECT_DOUBLE_EQ(watch.seconds(), 3.75);  // laps do not move the start
  EXPECT_DOUBLE_EQ(watch.lap(), 2.0);
}

TEST(Stopwatch, RunsOnTheProcessSteadyClockByDefault) {
  const Stopwatch watch;
  EXPECT_GE(watch.seconds(), 0.0);
  EXPECT_LT(watch.seconds(), 60.0);
}

TEST(UtcTimestamp, IsIso8601ToTheSecond) {
  EXPECT_TRUE(std::regex_match(utc_timestamp(), std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)")));
}

}  // namespace
}  // namespace kopt
