#pragma once
// What the bench worker (bench_job.cpp) carries while it measures a case: the device's timing
// facts, each variant's state, and what surrounds every sample outside the events. Internal to
// the worker.

#include <memory>
#include <string>
#include <vector>

#include "kopt/measure/batch_arguments.hpp"
#include "kopt/measure/bench_job.hpp"
#include "kopt/measure/call_batch.hpp"
#include "kopt/measure/captured_calls.hpp"
#include "kopt/measure/cuda_timing.hpp"
#include "kopt/measure/output_readback.hpp"
#include "kopt/measure/output_retention.hpp"
#include "kopt/measure/sample_witness.hpp"
#include "kopt/measure/stopping_criterion.hpp"
#include "kopt/measure/timed_call_inputs.hpp"
#include "kopt/run/code_pointers.hpp"
#include "kopt/run/device_settings.hpp"
#include "kopt/run/host_agents.hpp"
#include "kopt/run/kernel_library.hpp"
#include "kopt/run/stream_ledger.hpp"
#include "kopt/run/stream_watch.hpp"
#include "kopt/measure/timed_sample.hpp"

namespace kopt::measure {

// What the device's timing needs to know: its maximum SM clock (throttled samples are
// discarded) and the event timer's tick.
struct DeviceTiming {
  double max_clock_mhz = 0;
  double tick_seconds = 0;
};

// What one variant needs while it is being measured.
struct VariantState {
  std::string label;  // kept here: each case's samples are moved out when the case ends
  std::unique_ptr<run::KernelLibrary> library;
  StoppingCriterion criterion;
  VariantSamples samples;
  std::unique_ptr<CapturedCalls> graph;  // graph mode, when capture succeeded
  bool blocked = true;                    // solve's launches are queued behind the stream blocker
  double one_call_seconds = 0;            // the last warm-up call's event time: what n is chosen from
  std::vector<std::string> agents_left;   // what its library and calls left running (take_census)
  std::vector<std::string> interceptors;  // what its library and calls installed to answer system calls
  std::vector<std::string> redirected;    // pointers of kopt's data its calls led into its own code (take_sample, take_census)
  bool read_back = true;                  // BenchVariant::read_back_outputs
  int readbacks = 0;                      // samples of this case whose outputs kopt read back (output_readback.hpp)
  double readback_bytes = 0;              // and their bytes
  // What an unbatched call (the last warm-up call) launched in the timed stream's order: every
  // call of a batch must launch the same (run/stream_ledger.hpp).
  std::vector<run::TimedLaunch> unbatched_launches;
};

// Appends `note` to the variant's timing note.
inline void add_note(VariantSamples& samples, const std::string& note) {
  samples.timing_note += (samples.timing_note.empty() ? "" : "; ") + note;
}

// What surrounds the calls of every sample, outside the events.
struct SampleKit {
  const L2Flusher* flush;
  ClockProbe& probe;
  SampleEvents& events;
  run::StreamWatch* streams;  // null: solve's streams are not watched (run/stream_watch.hpp)
  const std::string& streams_unwatched;  // and why
  StreamBlocker& blocker;
  CallInputs& inputs;
  BatchDigests& digests;
  SampleSignals& witness;  // kopt's parent process's view of each sample
  OutputRetention& retention;  // variants whose outputs vary keep some calls' (output_retention.hpp)
  WorkerPhases& phases;        // where the sampling time goes (sampling_inputs, _timed, _digests)
  run::HostAgents& agents;     // the last census of threads, children, timers and system-call interceptors
  run::CodePointers& code_pointers;  // kopt's data that leads into code (run/code_pointers.hpp)
  bool agents_counted;         // false where Python hosts the worker: its census names interceptors only
  run::DeviceSettings* settings;  // the device-wide settings every sample starts from; null: not watched
  OutputReadback& readback;       // which samples' outputs kopt reads back before the digests, and the read
};

}  // namespace kopt::measure
