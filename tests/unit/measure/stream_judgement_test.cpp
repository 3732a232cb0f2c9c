#include "kopt/measure/stream_judgement.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "kopt/measure/bench.hpp"
#include "kopt/measure/bench_assessment.hpp"
#include "kopt/spec/problem_spec.hpp"

namespace kopt::measure {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

run::TimedLaunch add() { return {.kernel = "add", .grid = {256, 1, 1}, .block = {256, 1, 1}}; }

run::CallWork honest_call() { return {.timed = {add()}}; }

TEST(RecordCallWork, HonestCallsOfABatchLeaveNothing) {
  VariantSamples samples;
  EXPECT_FALSE(record_call_work(samples, {honest_call(), honest_call(), honest_call()}, {add()}));
  EXPECT_THAT(samples.batch_calls_unlike, IsEmpty());
  EXPECT_THAT(samples.streams_outside, IsEmpty());
  EXPECT_THAT(samples.work_unjoined, IsEmpty());
}

// The batch cheat: the first call computes every set, the others launch nothing.
TEST(RecordCallWork, ACallOfABatchThatLaunchesNothingIsNamed) {
  VariantSamples samples;
  record_call_work(samples, {honest_call(), run::CallWork{}, run::CallWork{}}, {add()});
  EXPECT_THAT(samples.batch_calls_unlike,
              ElementsAre("call 2 of 3 launched nothing where an unbatched call launches add<<<(256,1,1),(256,1,1)>>>",
                          "call 3 of 3 launched nothing where an unbatched call launches add<<<(256,1,1),(256,1,1)>>>"));
}

TEST(RecordCallWork, AnUnbatchedCallIsNotComparedWithItself) {
  VariantSamples samples;
  record_call_work(samples, {run::CallWork{}}, {add()});
  EXPECT_THAT(samples.batch_calls_unlike, IsEmpty());
}

TEST(RecordCallWork, WorkOutsideTheOrderIsKeptJoinedOrNot) {
  VariantSamples samples;
  const run::CallWork joined{.outside = {"add on a non-blocking stream"}};
  const run::CallWork stash{.timed = {add()},
                            .outside = {"cudaMemcpyAsync on a non-blocking stream"},
                            .unjoined = {"cudaMemcpyAsync on a non-blocking stream"}};
  EXPECT_TRUE(record_call_work(samples, {joined}, {}));
  EXPECT_THAT(samples.work_unjoined, IsEmpty());
  EXPECT_TRUE(record_call_work(samples, {stash}, {add()}));
  EXPECT_THAT(samples.streams_outside,
              ElementsAre("add on a non-blocking stream", "cudaMemcpyAsync on a non-blocking stream"));
  EXPECT_THAT(samples.work_unjoined, ElementsAre("cudaMemcpyAsync on a non-blocking stream"));
}

TEST(RecordCallWork, KeepsAFewLinesOfEachKind) {
  VariantSamples samples;
  std::vector<run::CallWork> calls(20);
  calls.front() = honest_call();
  record_call_work(samples, calls, {add()});
  EXPECT_EQ(samples.batch_calls_unlike.size(), kStreamFindingsKept);
}

VariantSamples timed(const std::string& label) {
  VariantSamples s{.label = label, .case_name = "default"};
  for (int i = 0; i < 20; ++i) {
    s.gpu_seconds.push_back(2e-6);
    s.host_seconds.push_back(2.1e-6);
  }
  return s;
}

std::vector<std::string> flags_for(VariantSamples samples) {
  spec::Problem problem;
  problem.cases.push_back({.name = "default"});
  BenchReport report;
  add_variants(report, problem, {std::move(samples)}, TimingMode::cold, true);
  return report.flags;
}

TEST(StreamsFinding, UnjoinedWorkAndUnlikeCallsAreFlaggedJoinedWorkIsNot) {
  VariantSamples joined = timed("own_stream.cu");
  joined.streams_outside = {"add on a non-blocking stream"};
  EXPECT_THAT(flags_for(joined), IsEmpty());

  VariantSamples stash = timed("stash.cu");
  stash.work_unjoined = {"cudaMemcpyAsync on a non-blocking stream"};
  EXPECT_THAT(flags_for(stash), ElementsAre(HasSubstr("stash.cu (case default): solve left work running outside the "
                                                      "default stream's order when it returned (cudaMemcpyAsync")));

  VariantSamples ahead = timed("ahead.cu");
  ahead.batch_calls_unlike = {"call 2 of 25 launched nothing where an unbatched call launches add"};
  EXPECT_THAT(flags_for(ahead), ElementsAre(HasSubstr("ahead.cu (case default): calls of a batch launched other work")));
}

TEST(StreamsFinding, UnlikeCallTimesAreFlaggedAboveTheLimitOnly) {
  VariantSamples even = timed("even.cu");
  even.batch_call_spread = std::vector<double>(20, 1.2);
  even.batch_call_spread.push_back(9.0);  // one preempted batch is noise
  EXPECT_THAT(flags_for(even), IsEmpty());

  VariantSamples ahead = timed("ahead.cu");
  ahead.batch_call_spread = std::vector<double>(20, 40.0);
  EXPECT_THAT(flags_for(ahead), ElementsAre(HasSubstr("ahead.cu (case default): the calls of its batches took unlike "
                                                      "times (the longest 40.00x the shortest")));
}

TEST(StreamsFinding, AWorkerThatCouldNotWatchWarnsOnce) {
  spec::Problem problem;
  problem.cases.push_back({.name = "default"});
  VariantSamples a = timed("a.cu"), b = timed("b.cu");
  a.streams_unwatched = b.streams_unwatched = "libcupti not found";
  BenchReport report;
  add_variants(report, problem, {a, b}, TimingMode::cold, true);
  EXPECT_THAT(report.warnings, ElementsAre(HasSubstr("solve's streams not watched (libcupti not found)")));
  EXPECT_THAT(report.flags, IsEmpty());
}

}  // namespace
}  // namespace kopt::measure
