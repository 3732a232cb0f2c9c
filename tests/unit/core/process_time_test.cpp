#include "kopt/core/process_time.hpp"

#include <chrono>
#include <thread>

#include <gtest/gtest.h>

namespace kopt {
namespace {

using namespace std::chrono_literals;

// Each run takes 50 ms of wall time; its program name decides its kind.
class SleepingRunner final : public ProcessRunner {
 public:
  ProcessResult run(const ProcessSpec&) override {
    std::this_thread::sleep_for(50ms);
    return {.started = true, .exit_status = 0};
  }
};

ProcessSpec program(const char* path) { return {.argv = {path, "--version"}}; }

TEST(ProcessTime, KindsFollowTheProgramName) {
  EXPECT_EQ(process_kind_of(program("/usr/local/cuda/bin/nvcc")), ProcessKind::compile);
  EXPECT_EQ(process_kind_of(program("cuobjdump")), ProcessKind::tool);
  EXPECT_EQ(process_kind_of(program("nvdisasm")), ProcessKind::tool);
  EXPECT_EQ(process_kind_of(program("/opt/kopt/bin/kopt")), ProcessKind::device);  // the worker
  EXPECT_EQ(process_kind_of(program("ncu")), ProcessKind::device);
  EXPECT_EQ(process_kind_of(ProcessSpec{}), ProcessKind::device);
}

TEST(ProcessTime, SequentialRunsAddUp) {
  SleepingRunner sleeping;
  ProcessTimeLedger ledger;
  TimedProcessRunner timed(sleeping, ledger);
  timed.run(program("nvcc"));
  timed.run(program("kopt"));
  timed.run(program("cuobjdump"));
  const ProcessTimes t = ledger.times();
  EXPECT_NEAR(t.compile_s, 0.05, 0.04);
  EXPECT_NEAR(t.device_s, 0.05, 0.04);
  EXPECT_NEAR(t.tool_s, 0.05, 0.04);
  EXPECT_NEAR(t.compile_or_device_s, t.compile_s + t.device_s, 1e-9);  // no overlap: the sum
  EXPECT_NEAR(t.compile_processes_s, t.compile_s, 1e-9);              // one compile at a time
}

TEST(ProcessTime, ParallelRunsOfOneKindCountOnce) {
  ProcessTimeLedger ledger;
  auto compile_on_own_runner = [&] {  // as the loop's parallel compiles do: a runner per thread
    SleepingRunner sleeping;
    TimedProcessRunner timed(sleeping, ledger);
    timed.run(program("nvcc"));
  };
  std::thread a(compile_on_own_runner);
  std::thread b(compile_on_own_runner);
  std::thread c(compile_on_own_runner);
  a.join();
  b.join();
  c.join();
  const ProcessTimes t = ledger.times();
  EXPECT_GE(t.compile_s, 0.049);
  EXPECT_LT(t.compile_s, 0.14);  // three 50 ms compiles side by side: ~50 ms, not 150 ms
  EXPECT_DOUBLE_EQ(t.compile_or_device_s, t.compile_s);
  // Their own seconds add up to ~150 ms: about three at once while any ran.
  EXPECT_GE(t.compile_processes_s, 0.149);
  EXPECT_GT(t.compile_processes_s / t.compile_s, 1.5);
}

TEST(ProcessTime, DifferenceIsTheTimeBetweenTwoReadings) {
  SleepingRunner sleeping;
  ProcessTimeLedger ledger;
  TimedProcessRunner timed(sleeping, ledger);
  timed.run(program("kopt"));
  const ProcessTimes before = ledger.times();
  timed.run(program("nvcc"));
  const ProcessTimes spent = ledger.times() - before;
  EXPECT_DOUBLE_EQ(spent.device_s, 0);
  EXPECT_GT(spent.compile_s, 0.04);
}

TEST(ProcessTime, ARunnerThatThrowsStillEndsItsInterval) {
  class Throwing final : public ProcessRunner {
   public:
    ProcessResult run(const ProcessSpec&) override { throw std::runtime_error("cannot fork"); }
  } throwing;
  ProcessTimeLedger ledger;
  TimedProcessRunner timed(throwing, ledger);
  EXPECT_THROW(timed.run(program("nvcc")), std::runtime_error);
  const double first = ledger.times().compile_s;
  std::this_thread::sleep_for(20ms);
  EXPECT_DOUBLE_EQ(ledger.times().compile_s, first);  // not still counting
}

}  // namespace
}  // namespace kopt
