#include "kopt/core/parallel_for.hpp"

#include <gtest/gtest.h>
#include <sched.h>

#include <atomic>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

namespace kopt {
namespace {

// A container or taskset that narrows the CPUs narrows the work: the affinity mask counts, not
// the machine's hardware threads (which may be many more, or, in some sandboxes, fewer).
TEST(UsableCores, FollowTheAffinityMask) {
  cpu_set_t before;
  ASSERT_EQ(::sched_getaffinity(0, sizeof before, &before), 0);
  EXPECT_EQ(usable_cores(), static_cast<unsigned>(CPU_COUNT(&before)));
  int first = 0;
  while (!CPU_ISSET(first, &before)) ++first;
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(first, &one);
  ASSERT_EQ(::sched_setaffinity(0, sizeof one, &one), 0);
  EXPECT_EQ(usable_cores(), 1u);
  ASSERT_EQ(::sched_setaffinity(0, sizeof before, &before), 0);
}

TEST(ParallelFor, CallsEveryIndexExactlyOnce) {
  std::vector<std::atomic<int>> calls(1000);
  parallel_for(calls.size(), [&](std::size_t i) { ++calls[i]; }, 8);
  for (const std::atomic<int>& c : calls) EXPECT_EQ(c.load(), 1);
}

TEST(ParallelFor, ZeroCountNeverCallsTheBody) {
  bool called = false;
  parallel_for(0, [&](std::size_t) { called = true; });
  EXPECT_FALSE(called);
}

TEST(ParallelFor, WidthOneRunsOnTheCallingThread) {
  const std::thread::id caller = std::this_thread::get_id();
  std::set<std::thread::id> seen;
  parallel_for(5, [&](std::size_t) { seen.insert(std::this_thread::get_id()); }, 1);
  EXPECT_EQ(seen, std::set<std::thread::id>{caller});
}

TEST(ParallelFor, UsesSeveralThreadsWhenAllowed) {
  // Each body waits until two of them are running at once: with one thread this would hang,
  // so the wait is bounded and the result checked.
  std::atomic<int> running = 0, peak = 0;
  parallel_for(2, [&](std::size_t) {
    peak = std::max(peak.load(), ++running);
    for (int spin = 0; spin < 2000 && running.load() < 2; ++spin) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    peak = std::max(peak.load(), running.load());
    --running;
  }, 2);
  EXPECT_EQ(peak.load(), 2);
}

TEST(ParallelFor, RethrowsTheLowestIndexFailureAfterRunningTheRest) {
  std::atomic<int> finished = 0;
  try {
    parallel_for(10, [&](std::size_t i) {
      if (i == 3) throw std::runtime_error("three");
      if (i == 7) throw std::runtime_error("seven");
      ++finished;
    }, 4);
    FAIL() << "no exception";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "three");
  }
  EXPECT_EQ(finished.load(), 8);
}

}  // namespace
}  // namespace kopt
