#pragma once
// The timing worker's view of which streams solve's work went to (issue 56; docs/integrity.md,
// "Streams"). CUPTI's API callbacks (runtime and driver) report every launch, copy, memset,
// graph launch, host function, event record, stream wait and synchronization that any thread
// of the worker makes, whichever CUDA runtime the kernel's library carries; between
// begin_call() and end_call() they feed a StreamLedger. CUPTI is loaded when the watch starts
// (dlopen), so kopt neither links it nor needs it: without it the watch is off and says why.
//
// The callbacks only record; they add no GPU work and leave the timed window untouched.

#include <memory>
#include <string>

#include "kopt/run/stream_ledger.hpp"

namespace kopt::run {

class StreamWatch {
 public:
  // Subscribes to CUPTI's callbacks. nullptr, with the reason in `why_not`, when it cannot:
  // libcupti not found, another subscriber already there (Nsight Compute, a sanitizer), a kopt
  // built without CUPTI's headers, or KOPT_STREAM_WATCH=off in the environment.
  static std::unique_ptr<StreamWatch> start(std::string& why_not);
  ~StreamWatch();
  StreamWatch(const StreamWatch&) = delete;
  StreamWatch& operator=(const StreamWatch&) = delete;

  // Records what the calling thread and every other thread send until end_call().
  void begin_call();
  CallWork end_call();
  // False when the callbacks were switched off since start(): nothing of kopt's does that, so
  // the kernel's code did.
  bool intact() const;

  struct Impl;

 private:
  explicit StreamWatch(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace kopt::run
