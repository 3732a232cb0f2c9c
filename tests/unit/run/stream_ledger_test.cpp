#include "kopt/run/stream_ledger.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace kopt::run {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

// Handles as CUDA would give them: opaque, distinct.
const void* const kSide = reinterpret_cast<const void*>(0x1000);
const void* const kOther = reinterpret_cast<const void*>(0x2000);
const void* const kEvent = reinterpret_cast<const void*>(0x3000);
const void* const kDefault = nullptr;

TimedLaunch add(unsigned blocks) { return {.kernel = "add", .grid = {blocks, 1, 1}, .block = {256, 1, 1}}; }

TEST(StreamLedger, LaunchesInTheTimedOrderAreListedAndNothingIsOutside) {
  StreamLedger ledger;
  ledger.launched_in_order(add(256));
  ledger.launched_in_order({.kernel = "cudaMemsetAsync"});
  const CallWork work = ledger.finish();
  EXPECT_THAT(work.timed, ElementsAre(add(256), TimedLaunch{.kernel = "cudaMemsetAsync"}));
  EXPECT_FALSE(work.sent_outside());
  EXPECT_EQ(describe(work.timed), "add<<<(256,1,1),(256,1,1)>>>, cudaMemsetAsync");
}

// The honest own-stream kernel: an event after its work, and the default stream waits for it.
TEST(StreamLedger, WorkJoinedByTheDefaultStreamWaitingForAnEventIsOutsideButJoined) {
  StreamLedger ledger;
  ledger.sent_outside(kSide, "add on a non-blocking stream");
  ledger.recorded(kEvent, kSide, false);
  ledger.waited(true, kEvent);
  const CallWork work = ledger.finish();
  EXPECT_THAT(work.outside, ElementsAre("add on a non-blocking stream"));
  EXPECT_THAT(work.unjoined, IsEmpty());
}

// The event stands for the work before it: what is sent after it is not joined by waiting for it.
TEST(StreamLedger, WorkSentAfterTheJoiningEventIsUnjoined) {
  StreamLedger ledger;
  ledger.sent_outside(kSide, "add on a non-blocking stream");
  ledger.recorded(kEvent, kSide, false);
  ledger.sent_outside(kSide, "cudaMemcpyAsync on a non-blocking stream");
  ledger.waited(true, kEvent);
  const CallWork work = ledger.finish();
  EXPECT_THAT(work.unjoined, ElementsAre("add on a non-blocking stream", "cudaMemcpyAsync on a non-blocking stream"));
}

// The stash cheat: the side stream waits for the default stream, copies, and nobody waits for it.
TEST(StreamLedger, AnOutsideStreamWaitingForTheDefaultOneJoinsNothing) {
  StreamLedger ledger;
  ledger.launched_in_order(add(1056));
  ledger.recorded(kEvent, kDefault, true);
  ledger.waited(false, kEvent);
  ledger.sent_outside(kSide, "cudaMemcpyAsync on a non-blocking stream");
  EXPECT_THAT(ledger.finish().unjoined, ElementsAre("cudaMemcpyAsync on a non-blocking stream"));
}

TEST(StreamLedger, TheHostWaitingForTheStreamTheEventOrTheDeviceJoins) {
  StreamLedger by_stream;
  by_stream.sent_outside(kSide, "add on a non-blocking stream");
  by_stream.stream_finished(kSide);
  EXPECT_THAT(by_stream.finish().unjoined, IsEmpty());

  StreamLedger by_event;
  by_event.sent_outside(kSide, "add on a non-blocking stream");
  by_event.recorded(kEvent, kSide, false);
  by_event.event_finished(kEvent);
  EXPECT_THAT(by_event.finish().unjoined, IsEmpty());

  StreamLedger by_device;
  by_device.sent_outside(kSide, "add on a non-blocking stream");
  by_device.sent_outside(kOther, "add on another CUDA context");
  by_device.device_finished();
  EXPECT_THAT(by_device.finish().unjoined, IsEmpty());
}

// An event re-recorded on the default stream no longer stands for the side stream's work.
TEST(StreamLedger, AnEventRecordedAgainInTheTimedOrderForgetsTheOutsideWork) {
  StreamLedger ledger;
  ledger.sent_outside(kSide, "add on a non-blocking stream");
  ledger.recorded(kEvent, kSide, false);
  ledger.recorded(kEvent, kDefault, true);
  ledger.waited(true, kEvent);
  EXPECT_THAT(ledger.finish().unjoined, ElementsAre("add on a non-blocking stream"));
}

TEST(StreamLedger, FinishStartsAfresh) {
  StreamLedger ledger;
  ledger.sent_outside(kSide, "add on a non-blocking stream");
  ledger.launched_in_order(add(1));
  ledger.finish();
  const CallWork next = ledger.finish();
  EXPECT_THAT(next.timed, IsEmpty());
  EXPECT_FALSE(next.sent_outside());
}

}  // namespace
}  // namespace kopt::run
