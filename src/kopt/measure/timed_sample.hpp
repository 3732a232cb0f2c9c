#pragma once
// One timed sample in the bench worker, as the GPU sees it and kopt's parent witnesses it: the
// clock probed and L2 flushed, the calls between two events (or a graph replayed), the host's
// clock, the launch error and kopt's code pointers read before the end signal; and the empty
// sample that measures kopt's own overhead around one. Only the worker (bench_job.cpp) calls
// these; they touch the GPU.

#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "kopt/measure/captured_calls.hpp"
#include "kopt/measure/cuda_timing.hpp"
#include "kopt/measure/sample_witness.hpp"
#include "kopt/run/code_pointers.hpp"
#include "kopt/run/kernel_arguments.hpp"
#include "kopt/run/kernel_library.hpp"
#include "kopt/run/stream_ledger.hpp"
#include "kopt/run/stream_watch.hpp"

namespace kopt::measure {

// The times of one sample, all its calls together.
struct Sample {
  double gpu_seconds = 0;
  double host_seconds = 0;
  double sm_clock_mhz = 0;  // 0: no probe
  bool blocker_timed_out = false;
  double held_seconds = 0;       // the host's time from the blocker in place to its release
  std::uint32_t witness_id = 0;  // under which kopt's parent saw it (0: not signalled)
  std::vector<std::string> redirected;  // run/code_pointers.hpp, read before the end signal
  std::vector<run::CallWork> work;      // what each call sent, by stream (empty: streams not watched)
  std::vector<double> call_seconds;     // a probe's calls' own event times: from the previous call's end to its end
};

// The events of one sample: its start, the end of every call but the last (a probe batch's:
// call_batch.hpp, BatchRule), and its stop (the last call's end).
struct SampleEvents {
  Event start;
  Event stop;
  std::deque<Event> call_ends;  // a deque: an Event does not move
  Event& end_of(std::size_t call, std::size_t calls);
};

// One call per argument set, back to back between the events (bench_job.cpp's take_sample).
// Each call is watched apart (`streams`, when on); with `call_events`, each ends at an event of
// its own (a probe batch).
Sample take_sample(const run::KernelLibrary& library, const std::vector<run::KernelArguments*>& calls,
                   const L2Flusher* flusher, ClockProbe& clock, SampleEvents& events, int flush_round,
                   StreamBlocker* blocker, run::CodePointers& code_pointers, run::StreamWatch* streams,
                   bool call_events = false, SampleSignals* witness = nullptr, std::uint32_t witness_id = 0);

// A captured graph of the calls, replayed once between the events.
Sample take_graph_sample(const run::KernelLibrary& library, const CapturedCalls& graph, ClockProbe& clock,
                         SampleEvents& events, run::CodePointers& code_pointers, SampleSignals& witness,
                         std::uint32_t witness_id);

// An empty sample right before a timed one: kopt's own overhead, which the parent allows each
// timed sample (sample_witness.hpp). Adds what kopt's code pointers led into to `redirected`.
void take_empty_sample(SampleEvents& events, run::CodePointers& code_pointers, SampleSignals& witness,
                       std::vector<std::string>& redirected);

// How many calls one graph holds: a replay of about 200 µs, 1 to 1000 calls.
int calls_per_graph(double one_call_seconds);

}  // namespace kopt::measure
