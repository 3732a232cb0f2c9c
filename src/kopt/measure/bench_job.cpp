#include "kopt/measure/bench_job.hpp"

#include <cuda_runtime.h>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>

#include "kopt/core/error.hpp"
#include "kopt/measure/captured_calls.hpp"
#include "kopt/measure/cuda_timing.hpp"
#include "kopt/measure/round_order.hpp"
#include "kopt/measure/sample_witness.hpp"
#include "kopt/measure/sample_progress.hpp"
#include "kopt/measure/timed_call_inputs.hpp"
#include "kopt/run/device_info.hpp"
#include "kopt/run/kernel_arguments.hpp"
#include "kopt/run/kernel_library.hpp"
#include "kopt/run/worker_launcher.hpp"

namespace kopt::measure {
namespace fs = std::filesystem;
using nlohmann::json;
using Clock = std::chrono::steady_clock;

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
};

struct Sample {
  double gpu_seconds = 0;
  double host_seconds = 0;
  double sm_clock_mhz = 0;  // 0: no probe
  bool blocker_timed_out = false;
  std::uint32_t witness_id = 0;  // under which kopt's parent saw it (0: not signalled)
};

// The clock is probed just before the flush, and one synchronization waits for both: the SM
// clock of the moment before the timed call, which thermal or power throttling (a matter of
// milliseconds) shares with the call itself.
double probe_and_flush(const run::KernelLibrary& library, ClockProbe& clock, const L2Flusher* flusher, int round) {
  const bool probed = clock.launch(library);
  if (flusher != nullptr) flusher->launch(library, round);
  run::check_cuda(cudaStreamSynchronize(nullptr), "cudaStreamSynchronize");
  return probed ? clock.read_mhz() : 0;
}

Sample take_sample(const run::KernelLibrary& library, const run::KernelArguments& arguments,
                   const L2Flusher* flusher, ClockProbe& clock, Event& start, Event& stop, int flush_round,
                   StreamBlocker* blocker, SampleSignals* witness = nullptr) {
  Sample sample{.sm_clock_mhz = probe_and_flush(library, clock, flusher, flush_round)};
  const bool blocked = blocker != nullptr && blocker->hold(library);
  // The parent's clock brackets exactly what the events and the host clock bracket.
  if (witness != nullptr) sample.witness_id = witness->begin();
  const auto host_start = Clock::now();
  run::check_cuda(cudaEventRecord(start.get(), nullptr), "cudaEventRecord");
  library.call(arguments.call());
  run::check_cuda(cudaEventRecord(stop.get(), nullptr), "cudaEventRecord");
  if (blocked) blocker->release();
  run::check_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  const auto host_end = Clock::now();
  if (witness != nullptr) witness->end(sample.witness_id);
  if (auto error = library.take_launch_error()) throw run::CudaFailure{"a launch in solve", *error};

  sample.blocker_timed_out = blocked && blocker->timed_out();
  float milliseconds = 0;
  run::check_cuda(cudaEventElapsedTime(&milliseconds, start.get(), stop.get()), "cudaEventElapsedTime");
  sample.gpu_seconds = milliseconds * 1e-3;
  sample.host_seconds = std::chrono::duration<double>(host_end - host_start).count();
  return sample;
}

constexpr double kGraphReplaySeconds = 200e-6;
constexpr int kMaxCallsPerGraph = 1000;

int calls_per_graph(double one_call_seconds) {
  if (one_call_seconds <= 0) return kMaxCallsPerGraph;
  return std::clamp(static_cast<int>(std::ceil(kGraphReplaySeconds / one_call_seconds)), 1, kMaxCallsPerGraph);
}

Sample take_graph_sample(const run::KernelLibrary& library, const CapturedCalls& graph, ClockProbe& clock,
                         Event& start, Event& stop, SampleSignals& witness) {
  Sample sample{.sm_clock_mhz = probe_and_flush(library, clock, nullptr, 0)};
  sample.witness_id = witness.begin();
  const auto host_start = Clock::now();
  run::check_cuda(cudaEventRecord(start.get(), cudaStreamPerThread), "cudaEventRecord");
  run::check_cuda(cudaGraphLaunch(graph.exec(), cudaStreamPerThread), "cudaGraphLaunch");
  run::check_cuda(cudaEventRecord(stop.get(), cudaStreamPerThread), "cudaEventRecord");
  run::check_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  const auto host_end = Clock::now();
  witness.end(sample.witness_id);
  float milliseconds = 0;
  run::check_cuda(cudaEventElapsedTime(&milliseconds, start.get(), stop.get()), "cudaEventElapsedTime");
  sample.gpu_seconds = milliseconds * 1e-3 / graph.calls();
  sample.host_seconds = std::chrono::duration<double>(host_end - host_start).count() / graph.calls();
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
  v.samples.timing_note =
      "solve waits for the device, so its launches cannot be queued ahead: the events include the host's launch time";
}

// Seconds from `mark` to now, moving `mark` to now: one phase of the worker's time ends.
double lap_seconds(Clock::time_point& mark) {
  const Clock::time_point now = Clock::now();
  const double seconds = std::chrono::duration<double>(now - mark).count();
  mark = now;
  return seconds;
}

// One call of solve as the timing loop makes it: fresh inputs, the sample, the digest.
struct Call {
  Sample sample;
  std::uint64_t seed = 0;
  std::optional<std::uint64_t> digest;
};

Call timed_call(VariantState& v, run::KernelArguments& arguments, CallInputs& inputs, const L2Flusher* flush,
                ClockProbe& probe, Event& start, Event& stop, int round, StreamBlocker& blocker,
                SampleSignals& witness) {
  Call call{.seed = inputs.next_seed()};
  inputs.prepare(*v.library, arguments, call.seed);
  call.sample = v.graph ? take_graph_sample(*v.library, *v.graph, probe, start, stop, witness)
                        : take_sample(*v.library, arguments, flush, probe, start, stop, round,
                                      v.blocked ? &blocker : nullptr, &witness);
  if (call.sample.blocker_timed_out) stop_blocking(v);
  call.digest = inputs.digest(*v.library, arguments);
  return call;
}

void warm_up(const BenchJob& job, VariantState& v, run::KernelArguments& arguments, CallInputs& inputs,
             const L2Flusher* flush, ClockProbe& probe, Event& start, Event& stop, StreamBlocker& blocker) {
  double last_call_seconds = 0;
  // The first call is never held: it loads the library's kernels (lazily, on first launch),
  // which waits for the device — and so for the blocker.
  for (int i = 0; i < std::max(2, job.settings.warmup_calls); ++i) {
    inputs.prepare(*v.library, arguments, inputs.next_seed());
    StreamBlocker* hold = i > 0 && v.blocked ? &blocker : nullptr;
    Sample s = take_sample(*v.library, arguments, flush, probe, start, stop, i, hold);
    if (i == 0) v.samples.first_call_seconds = s.host_seconds;
    last_call_seconds = s.gpu_seconds;
    if (s.blocker_timed_out) stop_blocking(v);
  }
  if (job.settings.mode == TimingMode::graph) prepare_graph(v, arguments, last_call_seconds);
}

void keep_call(const BenchJob& job, VariantState& v, const Call& call, double max_clock_mhz) {
  const Sample& s = call.sample;
  if (s.sm_clock_mhz > 0 && s.sm_clock_mhz < job.settings.throttle_fraction * max_clock_mhz) {
    ++v.samples.throttled_discarded;
    return;
  }
  v.samples.gpu_seconds.push_back(s.gpu_seconds);
  v.samples.host_seconds.push_back(s.host_seconds);
  if (s.sm_clock_mhz > 0) v.samples.sm_clock_mhz.push_back(s.sm_clock_mhz);
  v.samples.sample_seeds.push_back(call.seed);
  v.samples.sample_digests.push_back(call.digest.value_or(0));
  if (s.witness_id != 0) v.samples.witness_ids.push_back(s.witness_id);
  v.samples.digests = call.digest.has_value();
  v.criterion.add_sample(s.gpu_seconds);
}

// The criteria of a case's variants, for CaseStopping.
std::vector<const StoppingCriterion*> criteria_of(const std::vector<VariantState>& variants) {
  std::vector<const StoppingCriterion*> criteria;
  for (const VariantState& v : variants) criteria.push_back(&v.criterion);
  return criteria;
}

void measure_case(const BenchJob& job, std::size_t case_index, std::vector<VariantState>& variants,
                  const DeviceTiming& timing, const L2Flusher* flush, StreamBlocker& blocker, CallInputs& inputs,
                  SampleSignals& witness, BenchJobResult& result) {
  Clock::time_point mark = Clock::now();
  const spec::BoundCase& bound_case = job.cases[case_index];
  run::KernelArguments arguments(bound_case);
  ClockProbe probe;
  Event start, stop;
  result.phases.inputs += lap_seconds(mark);

  std::vector<bool> budgeted;
  for (std::size_t i = 0; i < variants.size(); ++i) {
    VariantState& v = variants[i];
    v.samples = VariantSamples{.label = v.label, .case_name = bound_case.name};
    run::report_progress(fmt::format("case {}: warming up {}", bound_case.name, v.samples.label));
    warm_up(job, v, arguments, inputs, flush, probe, start, stop, blocker);
    // Known once the warm-up has chosen the calls per sample (graph mode).
    v.samples.resolution_seconds = timing.tick_seconds / v.samples.calls_per_sample;
    v.criterion = StoppingCriterion(job.settings.stopping, v.samples.resolution_seconds);
    budgeted.push_back(job.variants[i].budgeted);
  }
  result.phases.warmup += lap_seconds(mark);
  run::report_progress(fmt::format("case {}: measuring", bound_case.name));
  SampleProgress progress(bound_case.name, variants.size());
  CaseStopping stopping(budgeted);
  RoundOrder order(job.order_seed, case_index, variants.size());
  const auto began = Clock::now();
  int round = 0;
  for (bool done = false; !done;) {
    for (std::size_t i : order.next()) {
      if (!stopping.sampling(i)) continue;
      VariantState& v = variants[i];
      keep_call(job, v, timed_call(v, arguments, inputs, flush, probe, start, stop, ++round, blocker, witness),
                timing.max_clock_mhz);
      progress.sampled(v.label, false);
    }
    done = stopping.update(criteria_of(variants), std::chrono::duration<double>(Clock::now() - began).count());
  }
  for (std::size_t i = 0; i < variants.size(); ++i) {
    variants[i].samples.stop_reason = std::string(stop_reason_name(stopping.reason(i)));
  }
  result.phases.sampling += lap_seconds(mark);
  // One more call each, made exactly like a timed one: a kernel that stopped working after
  // some number of calls is still not working here.
  for (VariantState& v : variants) {
    const Call final_call = timed_call(v, arguments, inputs, flush, probe, start, stop, ++round, blocker, witness);
    v.samples.final_seed = final_call.seed;
    v.samples.final_digest = final_call.digest.value_or(0);
    result.samples.push_back(std::move(v.samples));
  }
  result.phases.recheck += lap_seconds(mark);
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

BenchJobResult execute_bench_job(const BenchJob& job) {
  const auto began = Clock::now();
  BenchJobResult result;
  run::DeviceInfo device = run::query_device(job.device);
  result.device = device;
  result.mode = timing_mode_name(job.settings.mode);
  run::check_cuda(cudaSetDevice(job.device), "cudaSetDevice");

  std::vector<VariantState> variants;
  for (const BenchVariant& variant : job.variants) {
    VariantState state{.label = variant.label,
                       .library = std::make_unique<run::KernelLibrary>(variant.library, job.signature),
                       .criterion = StoppingCriterion(job.settings.stopping)};
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
  StreamBlocker blocker;
  CallInputs inputs(job.sample_key, 4 * std::max(device.sm_count, 1));
  SampleSignals witness(job.witness_fd);
  result.phases.setup = std::chrono::duration<double>(Clock::now() - began).count();
  for (std::size_t c = 0; c < job.cases.size(); ++c) {
    measure_case(job, c, variants, timing, flush ? &*flush : nullptr, blocker, inputs, witness, result);
  }
  result.wall_seconds = std::chrono::duration<double>(Clock::now() - began).count();
  return result;
}

}  // namespace kopt::measure
