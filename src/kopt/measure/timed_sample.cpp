#include "kopt/measure/timed_sample.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <optional>

#include "kopt/core/clock.hpp"
#include "kopt/run/device_buffer.hpp"

namespace kopt::measure {
namespace {

// The clock is probed just before the flush, and one synchronization waits for both: the SM
// clock of the moment before the timed call, which thermal or power throttling (a matter of
// milliseconds) shares with the call itself.
double probe_and_flush(const run::KernelLibrary& library, ClockProbe& clock, const L2Flusher* flusher, int round) {
  const bool probed = clock.launch(library);
  if (flusher != nullptr) flusher->launch(library, round);
  run::check_cuda(cudaStreamSynchronize(nullptr), "cudaStreamSynchronize");
  return probed ? clock.read_mhz() : 0;
}

constexpr double kGraphReplaySeconds = 200e-6;
constexpr int kMaxCallsPerGraph = 1000;

double elapsed_seconds(const Event& from, const Event& to) {
  float milliseconds = 0;
  run::check_cuda(cudaEventElapsedTime(&milliseconds, from.get(), to.get()), "cudaEventElapsedTime");
  return milliseconds * 1e-3;
}

}  // namespace

Event& SampleEvents::end_of(std::size_t call, std::size_t calls) {
  if (call + 1 == calls) return stop;
  while (call_ends.size() <= call) call_ends.emplace_back();
  return call_ends[call];
}

// One call per argument set, back to back between the events. The host clock starts at the
// blocker's release, when the GPU starts on the calls: before it the host only queues them (a
// few µs a call, which in a batch of 64 would look like work escaping the events); unblocked,
// the GPU runs each call as it is queued, so the clock starts before the first.
Sample take_sample(const run::KernelLibrary& library, const std::vector<run::KernelArguments*>& calls,
                   const L2Flusher* flusher, ClockProbe& clock, SampleEvents& events, int flush_round,
                   StreamBlocker* blocker, run::CodePointers& code_pointers, run::StreamWatch* streams,
                   bool call_events, SampleSignals* witness, std::uint32_t witness_id) {
  Sample sample{.sm_clock_mhz = probe_and_flush(library, clock, flusher, flush_round)};
  const bool blocked = blocker != nullptr && blocker->hold(library);
  Stopwatch host;
  // kopt's parent witnesses the same window as the host clock: from when the GPU may start;
  // and, for a held sample, how long solve's calls kept the host before that (work the kernel
  // did then, waited for inside solve, no clock of the sample would see).
  sample.witness_id = witness_id;
  if (witness != nullptr) {
    if (blocked) witness->hold(witness_id);
    else witness->begin(witness_id);
  }
  run::check_cuda(cudaEventRecord(events.start.get(), nullptr), "cudaEventRecord");
  for (std::size_t i = 0; i < calls.size(); ++i) {
    if (streams != nullptr) streams->begin_call();
    library.call(calls[i]->call());
    if (streams != nullptr) sample.work.push_back(streams->end_call());
    if (call_events || i + 1 == calls.size()) {
      run::check_cuda(cudaEventRecord(events.end_of(i, calls.size()).get(), nullptr), "cudaEventRecord");
    }
  }
  if (blocked) {
    if (witness != nullptr) witness->begin(sample.witness_id);
    sample.held_seconds = host.lap();  // from here on, the host's time of the sample itself
    blocker->release();
  }
  run::check_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  sample.host_seconds = host.lap();
  // Before the end signal, when a hook that waits for kopt's next call through a table (to do
  // there, out of every clock's sight, the work its calls skipped) must still be in place. The
  // launch error is read before it too: the read runs in the kernel's library (kopt's shim), and
  // whatever the kernel's code does there stays inside the parent's span.
  sample.redirected = code_pointers.redirected_now();
  const std::optional<std::string> launch_error = library.take_launch_error();
  if (witness != nullptr) witness->end(sample.witness_id);
  if (launch_error) throw run::CudaFailure{"a launch in solve", *launch_error};

  sample.blocker_timed_out = blocked && blocker->timed_out();
  sample.gpu_seconds = elapsed_seconds(events.start, events.stop);
  if (call_events && calls.size() > 1) {
    for (std::size_t i = 0; i < calls.size(); ++i) {
      const Event& from = i == 0 ? events.start : events.end_of(i - 1, calls.size());
      sample.call_seconds.push_back(elapsed_seconds(from, events.end_of(i, calls.size())));
    }
  }
  return sample;
}

// An empty sample: the signals, event records, synchronization and pointer check of a timed
// sample around no work at all, right before it (its id the timed one's less one). Only kopt's
// code runs inside it, so the parent's span of it is kopt's own overhead on this host as it is
// now, which the parent allows each timed sample beyond its reported time (sample_witness.hpp).
// The device is idle first, so that the span waits for nothing queued before it.
void take_empty_sample(SampleEvents& events, run::CodePointers& code_pointers, SampleSignals& witness,
                       std::vector<std::string>& redirected) {
  if (!witness.on()) return;
  run::check_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  const std::uint32_t id = witness.reserve();
  witness.record('S', id, {});  // no seeds: how the parent tells an empty sample from a timed one
  witness.begin(id);
  run::check_cuda(cudaEventRecord(events.start.get(), nullptr), "cudaEventRecord");
  run::check_cuda(cudaEventRecord(events.stop.get(), nullptr), "cudaEventRecord");
  run::check_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  for (std::string& line : code_pointers.redirected_now()) redirected.push_back(std::move(line));
  witness.end(id);
}

int calls_per_graph(double one_call_seconds) {
  if (one_call_seconds <= 0) return kMaxCallsPerGraph;
  return std::clamp(static_cast<int>(std::ceil(kGraphReplaySeconds / one_call_seconds)), 1, kMaxCallsPerGraph);
}

Sample take_graph_sample(const run::KernelLibrary& library, const CapturedCalls& graph, ClockProbe& clock,
                         SampleEvents& events, run::CodePointers& code_pointers, SampleSignals& witness,
                         std::uint32_t witness_id) {
  const Event& start = events.start;
  const Event& stop = events.stop;
  Sample sample{.sm_clock_mhz = probe_and_flush(library, clock, nullptr, 0), .witness_id = witness_id};
  witness.begin(witness_id);
  const Stopwatch host;
  run::check_cuda(cudaEventRecord(start.get(), cudaStreamPerThread), "cudaEventRecord");
  run::check_cuda(cudaGraphLaunch(graph.exec(), cudaStreamPerThread), "cudaGraphLaunch");
  run::check_cuda(cudaEventRecord(stop.get(), cudaStreamPerThread), "cudaEventRecord");
  run::check_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  sample.host_seconds = host.seconds();
  sample.redirected = code_pointers.redirected_now();
  witness.end(sample.witness_id);
  float milliseconds = 0;
  run::check_cuda(cudaEventElapsedTime(&milliseconds, start.get(), stop.get()), "cudaEventElapsedTime");
  sample.gpu_seconds = milliseconds * 1e-3;
  return sample;
}

}  // namespace kopt::measure
