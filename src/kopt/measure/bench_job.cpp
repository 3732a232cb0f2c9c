#include "kopt/measure/bench_job.hpp"

#include <cuda_runtime.h>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <deque>
#include <memory>

#include "kopt/core/clock.hpp"
#include "kopt/core/error.hpp"
#include "kopt/core/secret.hpp"
#include "kopt/measure/batch_arguments.hpp"
#include "kopt/measure/call_batch.hpp"
#include "kopt/measure/captured_calls.hpp"
#include "kopt/measure/cuda_timing.hpp"
#include "kopt/measure/output_readback.hpp"
#include "kopt/measure/output_retention.hpp"
#include "kopt/measure/round_order.hpp"
#include "kopt/measure/sample_witness.hpp"
#include "kopt/measure/sample_progress.hpp"
#include "kopt/measure/stream_judgement.hpp"
#include "kopt/measure/timed_call_inputs.hpp"
#include "kopt/run/code_pointers.hpp"
#include "kopt/run/device_info.hpp"
#include "kopt/run/device_settings.hpp"
#include "kopt/run/host_agents.hpp"
#include "kopt/run/kernel_arguments.hpp"
#include "kopt/run/kernel_library.hpp"
#include "kopt/run/stream_watch.hpp"
#include "kopt/run/worker_launcher.hpp"

namespace kopt::measure {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

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
  int readbacks = 0;                      // samples of this case whose outputs kopt read back (output_readback.hpp)
  double readback_bytes = 0;              // and their bytes
  // What an unbatched call (the last warm-up call) launched in the timed stream's order: every
  // call of a batch must launch the same (run/stream_ledger.hpp).
  std::vector<run::TimedLaunch> unbatched_launches;
};

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
  std::vector<double> call_seconds;     // each call's own event time: from the previous call's end to its end
};

// The events of one sample: its start, the end of every call but the last, and its stop (the
// last call's end). One more per call is enough to tell the calls of a batch apart; CUDA
// records them between the calls, where they wait for nothing but the call before.
struct SampleEvents {
  Event start;
  Event stop;
  std::deque<Event> call_ends;  // a deque: an Event does not move
  Event& end_of(std::size_t call, std::size_t calls) {
    if (call + 1 == calls) return stop;
    while (call_ends.size() <= call) call_ends.emplace_back();
    return call_ends[call];
  }
};

double elapsed_seconds(const Event& from, const Event& to) {
  float milliseconds = 0;
  run::check_cuda(cudaEventElapsedTime(&milliseconds, from.get(), to.get()), "cudaEventElapsedTime");
  return milliseconds * 1e-3;
}

// Appends `note` to the variant's timing note.
void add_note(VariantSamples& samples, const std::string& note) {
  samples.timing_note += (samples.timing_note.empty() ? "" : "; ") + note;
}

// The clock is probed just before the flush, and one synchronization waits for both: the SM
// clock of the moment before the timed call, which thermal or power throttling (a matter of
// milliseconds) shares with the call itself.
double probe_and_flush(const run::KernelLibrary& library, ClockProbe& clock, const L2Flusher* flusher, int round) {
  const bool probed = clock.launch(library);
  if (flusher != nullptr) flusher->launch(library, round);
  run::check_cuda(cudaStreamSynchronize(nullptr), "cudaStreamSynchronize");
  return probed ? clock.read_mhz() : 0;
}

// One call per argument set, back to back between the events. The host clock starts at the
// blocker's release, when the GPU starts on the calls: before it the host only queues them (a
// few µs a call, which in a batch of 64 would look like work escaping the events); unblocked,
// the GPU runs each call as it is queued, so the clock starts before the first.
// Each call is watched apart (`streams`, when on); with `call_events`, each ends at an event
// of its own (a probe batch: call_batch.hpp, BatchRule).
Sample take_sample(const run::KernelLibrary& library, const std::vector<run::KernelArguments*>& calls,
                   const L2Flusher* flusher, ClockProbe& clock, SampleEvents& events, int flush_round,
                   StreamBlocker* blocker, run::CodePointers& code_pointers, run::StreamWatch* streams,
                   bool call_events = false, SampleSignals* witness = nullptr, std::uint32_t witness_id = 0) {
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

constexpr double kGraphReplaySeconds = 200e-6;
constexpr int kMaxCallsPerGraph = 1000;

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

// Graph mode: capture the variant's calls; on failure it is measured warm and says why.
void prepare_graph(VariantState& v, const run::KernelArguments& arguments, double one_call_seconds) {
  v.graph = std::make_unique<CapturedCalls>();
  if (auto failure = v.graph->capture(*v.library, arguments, calls_per_graph(one_call_seconds))) {
    v.graph.reset();
    v.samples.timing_note = "graph capture failed (" + *failure + "); measured warm instead";
    return;
  }
  v.samples.calls_per_sample = v.graph->calls();
  v.samples.timing_note = fmt::format("graph of {} calls per sample", v.graph->calls());
}

// solve waited for the device while the blocker held it: time it unheld from now on.
void stop_blocking(VariantState& v) {
  v.blocked = false;
  add_note(v.samples,
           "solve waits for the device, so its launches cannot be queued ahead: the events include the host's launch time");
}

// solve's calls kept the host long while the GPU was held (host work, or work it waited for on
// a stream of its own): held, that time would be out of every clock's sight, so the variant is
// timed unheld, the host's time included (the parent's witness flags a variant that starts
// doing this only after its warm-up).
void stop_holding_slow_host(VariantState& v, const Sample& held) {
  v.blocked = false;
  add_note(v.samples, fmt::format("solve kept the host {:.0f} µs while the GPU was held (more than queueing launches "
                                  "takes): timed unheld, the host's time included",
                                  held.held_seconds * 1e6));
}

// BenchJob::python_hosted: after every variant's warm-up, before any sample, so that all of a
// variant's samples are timed one way; again if a blocker times out while sampling.
void time_alike(std::vector<VariantState>& variants) {
  const auto unheld = std::ranges::find_if(variants, [](const VariantState& v) { return !v.blocked; });
  if (unheld == variants.end()) return;
  for (VariantState& v : variants) {
    if (!v.blocked) continue;
    v.blocked = false;
    add_note(v.samples, fmt::format("timed unheld, the host's time included, as {} is: the variants compared are "
                                    "timed alike",
                                    unheld->label));
  }
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
  ReadbackChoice& readback;       // which samples' outputs kopt reads back before the digests
};

// What appeared since the last census belongs to the variant whose library was just loaded or
// whose calls just ran: nothing of kopt's own starts between the two (host_agents.hpp). Where
// Python hosts the worker, its interpreter and libraries start threads (and LLVM, Triton's
// compiler, its crash handlers, SIGSYS's among them) as they please, so only seccomp filters
// and tracers are named there.
void take_census(VariantState& v, run::HostAgents& seen, run::CodePointers& code_pointers, bool agents_counted) {
  // Every word of kopt's data, out of any sample's clocks (each sample's own check reads only the
  // words kept so far); the entries the runtime filled since are kept from now on.
  for (std::string& redirected : code_pointers.scan_now()) v.redirected.push_back(std::move(redirected));
  run::HostAgents now = run::HostAgents::now();
  if (agents_counted) {
    for (std::string& agent : now.newcomers_since(seen)) v.agents_left.push_back(std::move(agent));
  }
  for (std::string& interceptor : now.interceptors_since(seen, agents_counted)) {
    v.interceptors.push_back(std::move(interceptor));
  }
  seen = std::move(now);
}

// A device-wide setting that a variant's calls changed is put back before anything else runs,
// and the variant named in `named`: it would slow the variants timed after it
// (run/device_settings.hpp). What CUDA will not put back (a heap size, once a kernel has used
// the heap) becomes the baseline, so that it is named once, not after every sample.
void watch_settings(std::vector<std::string>& named, run::DeviceSettings* baseline) {
  if (baseline == nullptr) return;
  const std::vector<std::string> changes = run::DeviceSettings::now().changes_since(*baseline);
  if (changes.empty()) return;
  for (const std::string& change : changes) {
    if (std::ranges::find(named, change) == named.end()) named.push_back(change);
  }
  baseline->restore();
  run::DeviceSettings after = run::DeviceSettings::now();
  for (const std::string& kept : after.changes_since(*baseline)) named.push_back(kept + " (CUDA would not put it back)");
  *baseline = std::move(after);
}

// solve sent work outside the default stream's order: held, that work could start as the
// blocker lets go, before the start event fires (issue 56), so the variant is timed unheld from
// now on: the GPU idle at the start event, everything solve sends comes after it.
void time_unheld_for_streams(VariantState& v) {
  if (!v.blocked) return;
  v.blocked = false;
  add_note(v.samples, "solve sends work outside the default stream's order: timed unheld, so that none of it can "
                      "start before the window opens");
}

// What the calls of a sample sent, by stream, into the variant's record; whether the sample
// may be kept (not when it was held while solve sent work outside the order).
bool judge_streams(VariantState& v, const Sample& sample, const SampleKit& kit, bool held) {
  if (kit.streams == nullptr) return true;
  if (!kit.streams->intact() && v.samples.work_unjoined.size() < kStreamFindingsKept) {
    v.samples.work_unjoined.push_back("kopt's watch of the streams (CUPTI's callbacks), switched off while solve ran");
  }
  if (!record_call_work(v.samples, sample.work, v.unbatched_launches)) return true;
  time_unheld_for_streams(v);
  return !held;
}

// One sample as the timing loop takes it: fresh inputs from a seed of their own for every
// argument set, the calls (one per set; a graph replay on the first), every set's digest;
// `last`: the variant's last sample on the case (its outputs always read back).
TimedBatch timed_batch(VariantState& v, const std::vector<run::KernelArguments*>& sets, SampleKit& kit, int round,
                       bool last = false) {
  TimedBatch batch{.calls = v.graph ? v.graph->calls() : static_cast<int>(sets.size())};
  // A probe batch, drawn in secret as the batch is queued: its calls are told apart by events
  // between them, which cost each call about a microsecond, so it is not kept as a sample.
  batch.probe = !last && !v.graph && sets.size() > 1 && fresh_secret_64() % batch_rule().probe_one_in == 0;
  Stopwatch mark;  // each lap, one phase of the worker's time
  for (run::KernelArguments* set : sets) {
    batch.seeds.push_back(kit.inputs.next_seed());
    kit.inputs.prepare(*v.library, *set, batch.seeds.back());
  }
  kit.phases.sampling_inputs += mark.lap();
  take_empty_sample(kit.events, kit.code_pointers, kit.witness, v.redirected);
  // kopt's parent hears the seeds before solve runs, and the digests below as soon as they are
  // taken: a later call cannot rewrite what it heard (sample_witness.hpp).
  const std::uint32_t id = kit.witness.reserve();
  kit.witness.record('S', id, batch.seeds);
  const bool held = v.blocked && !v.graph;
  const Sample sample =
      v.graph ? take_graph_sample(*v.library, *v.graph, kit.probe, kit.events, kit.code_pointers, kit.witness, id)
              : take_sample(*v.library, sets, kit.flush, kit.probe, kit.events, round,
                            v.blocked ? &kit.blocker : nullptr, kit.code_pointers, kit.streams, batch.probe,
                            &kit.witness, id);
  v.redirected.insert(v.redirected.end(), sample.redirected.begin(), sample.redirected.end());
  if (sample.blocker_timed_out) stop_blocking(v);
  batch.gpu_seconds = sample.gpu_seconds;
  batch.host_seconds = sample.host_seconds;
  batch.sm_clock_mhz = sample.sm_clock_mhz;
  batch.witness_id = sample.witness_id;
  batch.call_seconds = sample.call_seconds;
  batch.discarded = !judge_streams(v, sample, kit, held);
  kit.phases.sampling_timed += mark.lap();
  // Between the sample's end and here only kopt's code ran: what the outputs hold now is what the
  // sample left, before any call into the kernel's library (whose runtime launches the digests).
  if (kit.witness.on() && kit.readback.next(v.readbacks, v.readback_bytes, last)) {
    ++v.readbacks;
    v.readback_bytes += output_bytes(sets);
    kit.witness.record('R', id, read_back_digests(sets));
    kit.phases.sampling_readback += mark.lap();
  }
  batch.digests = kit.digests.take(*v.library, sets);
  kit.witness.record('D', id, recorded_digests(batch));
  kit.phases.sampling_digests += mark.lap();
  return batch;
}

void warm_up(const BenchJob& job, VariantState& v, run::KernelArguments& arguments, SampleKit& kit) {
  // The first call is never held: it loads the library's kernels (lazily, on first launch),
  // which waits for the device — and so for the blocker.
  for (int i = 0; i < std::max(2, job.settings.warmup_calls); ++i) {
    kit.inputs.prepare(*v.library, arguments, kit.inputs.next_seed());
    StreamBlocker* hold = i > 0 && v.blocked ? &kit.blocker : nullptr;
    Sample s = take_sample(*v.library, {&arguments}, kit.flush, kit.probe, kit.events, i, hold, kit.code_pointers,
                           kit.streams);
    v.redirected.insert(v.redirected.end(), s.redirected.begin(), s.redirected.end());
    if (!s.work.empty()) v.unbatched_launches = s.work.front().timed;
    judge_streams(v, s, kit, hold != nullptr);
    if (i == 0) v.samples.first_call_seconds = s.host_seconds;
    v.one_call_seconds = s.gpu_seconds;
    if (s.blocker_timed_out) stop_blocking(v);
    else if (hold != nullptr && held_too_long(s.held_seconds, s.gpu_seconds, 1, sample_witness_rule(solve_host(job)))) {
      stop_holding_slow_host(v, s);
    }
  }
  v.samples.unbatched_launches = describe_each(v.unbatched_launches);
  v.samples.streams_unwatched = kit.streams_unwatched;
  if (job.settings.mode == TimingMode::graph) prepare_graph(v, arguments, v.one_call_seconds);
  take_census(v, kit.agents, kit.code_pointers, kit.agents_counted);
  watch_settings(v.samples.settings_set_in_warmup, kit.settings);
}

void keep_batch(const BenchJob& job, VariantState& v, const TimedBatch& batch, double max_clock_mhz) {
  if (auto per_call = record_batch(v.samples, batch, job.settings.throttle_fraction * max_clock_mhz,
                                   batch_rule().spread_min_ticks)) {
    v.criterion.add_sample(*per_call, batch.calls);
  }
}

// The calls of one sample for the case's variants: n from the shortest variant's warm-up call,
// the same for all of them, so that the events' fixed cost weighs alike on every variant (a
// ratio of per-call medians of batches of different sizes would carry it). Graph mode: 1 (the
// graph holds its own calls). Allocates the argument sets.
int choose_calls(const BenchJob& job, std::vector<VariantState>& variants, ArgumentSets& sets) {
  if (job.settings.mode == TimingMode::graph) return 1;
  double shortest = variants.front().one_call_seconds;
  for (const VariantState& v : variants) shortest = std::min(shortest, v.one_call_seconds);
  const int wanted = calls_per_batch(shortest, job.settings.max_calls_per_sample);
  const int calls = sets.grow_to(wanted);
  if (calls > 1) {
    for (VariantState& v : variants) add_note(v.samples, batch_note(job.settings.mode, calls, wanted));
  }
  return calls;
}

// The criteria of a case's variants, for CaseStopping.
std::vector<const StoppingCriterion*> criteria_of(const std::vector<VariantState>& variants) {
  std::vector<const StoppingCriterion*> criteria;
  for (const VariantState& v : variants) criteria.push_back(&v.criterion);
  return criteria;
}

void measure_case(const BenchJob& job, std::size_t case_index, std::vector<VariantState>& variants,
                  const DeviceTiming& timing, SampleKit& kit, BenchJobResult& result) {
  Stopwatch mark;  // each lap, one phase of the worker's time
  const spec::BoundCase& bound_case = job.cases[case_index];
  ArgumentSets sets(bound_case);
  // Before any variant's first call of the case: a kernel that allocates device memory in its
  // warm-up cannot starve the memory its own kept outputs need (an unverifiable variant is
  // flagged anyway, bench_assessment.cpp; this keeps honest ones from being).
  kit.retention.start_case(case_index, sets.first());
  result.phases.inputs += mark.lap();

  // What kopt itself started since the libraries were loaded is nobody's.
  kit.agents = run::HostAgents::now();
  // The device's settings as the worker found them, before any library was loaded: what a
  // library's constructors or an earlier case changed is put back (where CUDA lets it) before
  // this case's first call.
  if (kit.settings != nullptr) {
    kit.settings->restore();
    *kit.settings = run::DeviceSettings::now();
  }
  std::vector<bool> budgeted;
  for (std::size_t i = 0; i < variants.size(); ++i) {
    VariantState& v = variants[i];
    v.samples = VariantSamples{.label = v.label, .case_name = bound_case.name};
    v.readbacks = 0;
    v.readback_bytes = 0;
    run::report_progress(fmt::format("case {}: warming up {}", bound_case.name, v.samples.label));
    warm_up(job, v, sets.first(), kit);
    budgeted.push_back(job.variants[i].budgeted);
  }
  if (job.python_hosted) time_alike(variants);
  result.phases.warmup += mark.lap();
  const int calls = choose_calls(job, variants, sets);
  const std::vector<run::KernelArguments*> batch_sets = sets.first(calls);
  for (VariantState& v : variants) {
    if (!v.graph) v.samples.calls_per_sample = calls;
    v.samples.l2 = std::string(l2_policy(job.settings.mode, v.samples.calls_per_sample));
    v.samples.resolution_seconds = timing.tick_seconds / v.samples.calls_per_sample;
    v.criterion = StoppingCriterion(job.settings.stopping, v.samples.resolution_seconds);
  }
  result.phases.inputs += mark.lap();
  run::report_progress(fmt::format("case {}: measuring", bound_case.name));
  SampleProgress progress(bound_case.name, variants.size());
  CaseStopping stopping(budgeted);
  RoundOrder order(job.order_seed, case_index, variants.size());
  const Stopwatch began;
  int round = 0;
  for (bool done = false; !done;) {
    for (std::size_t i : order.next()) {
      if (!stopping.sampling(i)) continue;
      VariantState& v = variants[i];
      const TimedBatch batch = timed_batch(v, batch_sets, kit, ++round);
      take_census(v, kit.agents, kit.code_pointers, kit.agents_counted);
      watch_settings(v.samples.settings_changed, kit.settings);
      if (job.python_hosted && !v.blocked) time_alike(variants);  // its blocker timed out: the rest follow
      kit.retention.offer_calls(i, batch.seeds, batch_sets);
      keep_batch(job, v, batch, timing.max_clock_mhz);
      progress.sampled(v.label, false);
    }
    done = stopping.update(criteria_of(variants), began.seconds());
  }
  for (std::size_t i = 0; i < variants.size(); ++i) {
    variants[i].samples.stop_reason = std::string(stop_reason_name(stopping.reason(i)));
  }
  result.phases.sampling += mark.lap();
  // One more sample each, taken exactly like a timed one; its last call is audited: a kernel
  // that stopped working after some number of calls is still not working there.
  for (std::size_t i = 0; i < variants.size(); ++i) {
    VariantState& v = variants[i];
    const TimedBatch final_batch = timed_batch(v, batch_sets, kit, ++round, true);
    take_census(v, kit.agents, kit.code_pointers, kit.agents_counted);
    watch_settings(v.samples.settings_changed, kit.settings);
    v.samples.agents_left = v.agents_left;
    v.samples.interceptors_installed = v.interceptors;
    v.samples.code_pointers_redirected = v.redirected;
    kit.retention.offer_calls(i, {final_batch.seeds.back()}, {batch_sets.back()});
    v.samples.final_seed = final_batch.seeds.back();
    v.samples.final_witness_id = final_batch.witness_id;
    v.samples.final_digest = final_batch.digests.back().value_or(0);
    result.samples.push_back(std::move(v.samples));
  }
  kit.retention.finish_case(sets.first(), std::span(result.samples).last(variants.size()));
  result.phases.recheck += mark.lap();
}

}  // namespace

std::string_view timing_mode_name(TimingMode mode) {
  switch (mode) {
    case TimingMode::cold: return "cold";
    case TimingMode::warm: return "warm";
    case TimingMode::graph: return "graph";
  }
  return "cold";
}

TimingMode timing_mode_from_name(std::string_view name) {
  if (name == "cold") return TimingMode::cold;
  if (name == "warm") return TimingMode::warm;
  if (name == "graph") return TimingMode::graph;
  throw input_error("unknown timing mode \"{}\" (cold, warm or graph)", name);
}

std::string_view l2_flush_name(L2Flush flush) { return flush == L2Flush::read ? "read" : "write"; }

L2Flush l2_flush_from_name(std::string_view name) {
  if (name == "read") return L2Flush::read;
  if (name == "write") return L2Flush::write;
  throw input_error("unknown L2 flush \"{}\" (read or write)", name);
}

std::int64_t l2_flush_bytes(L2Flush flush, std::int64_t l2_bytes) {
  return flush == L2Flush::read ? 2 * l2_bytes : l2_bytes;
}

namespace {

// KOPT_STREAM_WATCH=off leaves CUPTI alone (a driver where its callbacks misbehave); the
// verdict then says the streams were not watched.
std::unique_ptr<run::StreamWatch> watch_streams(std::string& why_not) {
  if (const char* setting = std::getenv("KOPT_STREAM_WATCH"); setting != nullptr && std::string_view(setting) == "off") {
    why_not = "KOPT_STREAM_WATCH=off";
    return nullptr;
  }
  return run::StreamWatch::start(why_not);
}

}  // namespace

BenchJobResult execute_bench_job(const BenchJob& job) {
  const Stopwatch began;
  BenchJobResult result;
  run::DeviceInfo device = run::query_device(job.device);
  result.device = device;
  result.mode = timing_mode_name(job.settings.mode);
  run::check_cuda(cudaSetDevice(job.device), "cudaSetDevice");
  // Before the census of agents and code pointers below: CUPTI is kopt's, not a library's.
  std::string streams_unwatched;
  std::unique_ptr<run::StreamWatch> streams = watch_streams(streams_unwatched);

  // A Python-hosted worker's interpreter and libraries start threads (and set the device up)
  // as they please: its census counts no agents and its settings are not watched
  // (take_census); what can answer its system calls is named all the same.
  const bool agents_counted = !job.python_hosted;
  if (agents_counted) run::keep_orphans_in_census();
  run::HostAgents agents = run::HostAgents::now();
  // CUDA's runtime has its driver entry points by now (query_device), and no kernel is loaded.
  run::CodePointers code_pointers = run::CodePointers::now();
  std::optional<run::DeviceSettings> settings;  // as the worker found them; each case starts from them
  if (agents_counted) settings = run::DeviceSettings::now();
  std::vector<VariantState> variants;
  for (const BenchVariant& variant : job.variants) {
    VariantState state{.label = variant.label,
                       .library = std::make_unique<run::KernelLibrary>(variant.library, job.signature),
                       .criterion = StoppingCriterion(job.settings.stopping)};
    take_census(state, agents, code_pointers, agents_counted);  // its constructors ran as it was loaded
    variants.push_back(std::move(state));
  }
  std::optional<L2Flusher> flush;
  if (job.settings.mode == TimingMode::cold) {
    const std::int64_t bytes = l2_flush_bytes(job.settings.l2_flush, device.l2_bytes);
    flush.emplace(job.settings.l2_flush, static_cast<std::size_t>(bytes), 4 * std::max(device.sm_count, 1));
  }
  const DeviceTiming timing{.max_clock_mhz = static_cast<double>(device.sm_clock_khz) / 1e3,
                            .tick_seconds = measure_event_tick(*variants.front().library)};
  result.event_tick_seconds = timing.tick_seconds;
  StreamBlocker blocker{sample_witness_rule(solve_host(job)).blocker_timeout_seconds};
  ClockProbe probe;
  SampleEvents events;
  CallInputs inputs(job.sample_key, 4 * std::max(device.sm_count, 1));
  BatchDigests digests(4 * std::max(device.sm_count, 1));
  SampleSignals witness(job.witness_fd);
  OutputRetention retention(job);
  ReadbackChoice readback(readback_rule());
  SampleKit kit{.flush = flush ? &*flush : nullptr, .probe = probe, .events = events, .streams = streams.get(),
                .streams_unwatched = streams_unwatched, .blocker = blocker,
                .inputs = inputs, .digests = digests, .witness = witness, .retention = retention,
                .phases = result.phases, .agents = agents, .code_pointers = code_pointers, .agents_counted = agents_counted,
                .settings = settings ? &*settings : nullptr, .readback = readback};
  result.phases.setup = began.seconds();
  for (std::size_t c = 0; c < job.cases.size(); ++c) measure_case(job, c, variants, timing, kit, result);
  result.wall_seconds = began.seconds();
  return result;
}

}  // namespace kopt::measure
