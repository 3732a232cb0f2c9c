#pragma once
// What one call of solve sent to the GPU, by stream (issue 56; docs/integrity.md, "Streams").
// kopt times the legacy default stream: its events, the blocker that holds it and the host
// clock around it. Work on that stream, on the per-thread default stream and on blocking
// streams is ordered with it (CUDA makes the legacy stream and blocking streams wait for each
// other), so its events see it. Work on a non-blocking stream, or in another context, is not:
// it can start before the start event fires (while the blocker lets go) and end after the stop
// event, unless solve joins it back (the default stream waits for an event recorded after it,
// or the host waits for it) before it returns.
//
// The ledger is fed by run/stream_watch.hpp (CUPTI's API callbacks) one call at a time; it is
// pure bookkeeping, tested without a GPU.

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace kopt::run {

// A kernel launched in the timed stream's order: what an unbatched call is compared with.
struct TimedLaunch {
  std::string kernel;  // the symbol CUPTI names, or the API's name for a copy, memset, graph or host function
  std::array<unsigned, 3> grid{};
  std::array<unsigned, 3> block{};
  bool operator==(const TimedLaunch&) const = default;
};
std::string describe(const TimedLaunch& launch);

// The work one call sent: in the timed order, and outside it (joined back or not).
struct CallWork {
  std::vector<TimedLaunch> timed;
  std::vector<std::string> outside;   // "add_kernel on a non-blocking stream", once per kind of work
  std::vector<std::string> unjoined;  // those of `outside` still unjoined when solve returned
  bool sent_outside() const { return !outside.empty(); }
};

// One line per launch, as bench.json lists an unbatched call's.
std::vector<std::string> describe_each(const std::vector<TimedLaunch>& launches);
// "nothing" or "add<<<(4096,1,1),(256,1,1)>>>, ..." for messages.
std::string describe(const std::vector<TimedLaunch>& launches);

class StreamLedger {
 public:
  using Handle = const void*;  // a stream or an event, as CUDA names it

  void launched_in_order(TimedLaunch launch) { work_.timed.push_back(std::move(launch)); }
  // Work (a launch, a copy, a host function) sent to a stream outside the timed order.
  void sent_outside(Handle stream, const std::string& what);
  // An event recorded on a stream: on an outside stream it stands for that stream's work so far.
  void recorded(Handle event, Handle stream, bool stream_in_order);
  // A stream made to wait for an event: the timed order waiting joins the event's work.
  void waited(bool stream_in_order, Handle event);
  // The host waited for an event, a stream, or the whole device (returned successfully).
  void event_finished(Handle event);
  void stream_finished(Handle stream);
  void device_finished();

  // What the call sent; the ledger starts afresh.
  CallWork finish();

 private:
  struct Stream {
    int sent = 0;    // pieces of work sent to it during the call
    int joined = 0;  // of those, how many are known finished or waited for by the timed order
    std::vector<std::string> what;
  };
  struct RecordedEvent {
    Handle stream;
    int covers;  // the stream's work sent before the event was recorded
  };
  void join(Handle stream, int upto);

  CallWork work_;
  std::map<Handle, Stream> outside_;
  std::map<Handle, RecordedEvent> events_;
};

}  // namespace kopt::run
