#include "kopt/measure/bench_job.hpp"

#include <cuda_runtime.h>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>

#include "kopt/core/error.hpp"
#include "kopt/measure/round_order.hpp"
#include "kopt/measure/sample_progress.hpp"
#include "kopt/run/device_buffer.hpp"
#include "kopt/run/device_info.hpp"
#include "kopt/run/kernel_arguments.hpp"
#include "kopt/run/kernel_library.hpp"
#include "kopt/run/problem_codec.hpp"
#include "kopt/run/worker_launcher.hpp"
#include "kopt_input_generator.h"

namespace kopt::measure {
namespace fs = std::filesystem;
using nlohmann::json;
using Clock = std::chrono::steady_clock;

namespace {

// ~10 µs at 2 GHz: long enough that the global timer's resolution costs < 1 %.
constexpr long long kClockProbeCycles = 20000;

// RAII for a CUDA event.
class Event {
 public:
  Event() { run::check_cuda(cudaEventCreate(&event_), "cudaEventCreate"); }
  ~Event() { cudaEventDestroy(event_); }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  cudaEvent_t get() const { return event_; }

 private:
  cudaEvent_t event_{};
};

// Device memory without guards (the flush buffer).
class DeviceScratch {
 public:
  explicit DeviceScratch(std::size_t bytes) : bytes_(bytes) { run::check_cuda(cudaMalloc(&data_, bytes), "cudaMalloc"); }
  ~DeviceScratch() { cudaFree(data_); }
  DeviceScratch(const DeviceScratch&) = delete;
  DeviceScratch& operator=(const DeviceScratch&) = delete;
  void* data() const { return data_; }
  std::size_t size() const { return bytes_; }

 private:
  void* data_ = nullptr;
  std::size_t bytes_;
};

// N values of T in mapped host memory, which a kernel writes and the host reads (or the
// reverse) with no copy and no synchronization of their own. Volatile: the other side changes
// them behind the compiler's back.
template <typename T, std::size_t N>
class MappedHostValues {
 public:
  MappedHostValues() {
    void* memory = nullptr;
    run::check_cuda(cudaHostAlloc(&memory, N * sizeof(T), cudaHostAllocMapped | cudaHostAllocPortable), "cudaHostAlloc");
    values_ = static_cast<T*>(memory);
  }
  ~MappedHostValues() { cudaFreeHost(values_); }
  MappedHostValues(const MappedHostValues&) = delete;
  MappedHostValues& operator=(const MappedHostValues&) = delete;

  T* data() { return values_; }
  volatile T& operator[](std::size_t i) { return static_cast<volatile T*>(values_)[i]; }
  const volatile T& operator[](std::size_t i) const { return static_cast<const volatile T*>(values_)[i]; }
  void clear() {
    for (std::size_t i = 0; i < N; ++i) (*this)[i] = T{};
  }

 private:
  T* values_ = nullptr;
};

// The SM clock probe (runtime/kopt_shim.cu), writing its two numbers to mapped host memory:
// no copy back, and no synchronization of its own when it is queued with the flush.
class ClockProbe {
 public:
  // Queues the probe on the default stream; false when the library has none.
  bool launch(const run::KernelLibrary& library, long long cycles = kClockProbeCycles) {
    measured_.clear();
    return library.launch_clock_probe(measured_.data(), cycles);
  }
  // After a synchronization that followed launch(): SM cycles per microsecond; 0 if it did not run.
  double read_mhz() const {
    const unsigned long long cycles = measured_[0], nanoseconds = measured_[1];
    return nanoseconds > 0 ? 1e3 * static_cast<double>(cycles) / static_cast<double>(nanoseconds) : 0;
  }

 private:
  MappedHostValues<unsigned long long, 2> measured_;  // [0] cycles, [1] nanoseconds
};

// The host side of kopt's stream blocker: the release flag the host sets and the timed-out
// flag the blocker writes back.
class StreamBlocker {
 public:
  // Holds the default stream until release(); false when the library has no blocker.
  bool hold(const run::KernelLibrary& library) {
    flags_.clear();
    return library.launch_stream_blocker(flags_.data(), kTimeoutNs, flags_.data() + 1);
  }
  void release() { flags_[0] = 1; }
  // After the device is synchronized: whether solve kept the host from releasing in time.
  bool timed_out() const { return flags_[1] != 0; }

 private:
  // Long enough for any solve to queue its launches; a solve that waits for the device
  // instead costs this once, in the warm-up, and is then timed without the blocker.
  static constexpr unsigned long long kTimeoutNs = 50'000'000;
  MappedHostValues<int, 2> flags_;  // [0] released by the host, [1] timed out
};

// The poison of every timed call's pure outputs: NaN in every floating type.
constexpr unsigned char kTimedPoison = 0xFF;

// What surrounds every call of solve in the timing loop, outside the events: fresh inputs
// from a seed of their own, poisoned outputs and a persisting L2 with nothing in it before;
// the outputs' digest after. A kernel therefore cannot recognise inputs it has seen, find
// its last answer still in place, or keep data resident from one sample to the next; and
// kopt can check afterwards, in another process, that what a timed call wrote is what the
// same kernel writes when it is verified (measure/timed_call_audit.hpp).
class CallInputs {
 public:
  CallInputs(std::uint64_t key, int blocks) : key_(key), blocks_(blocks) {}

  std::uint64_t next_seed() { return kopt_generator::mix64(key_ ^ kopt_generator::mix64(++calls_)); }

  void prepare(const run::KernelLibrary& library, run::KernelArguments& arguments, std::uint64_t seed) const {
    arguments.regenerate_on_device(library, seed, kTimedPoison, blocks_);
    reset_persisting_l2();
  }

  // The digest of all outputs after a call; nullopt when the library cannot take one.
  std::optional<std::uint64_t> digest(const run::KernelLibrary& library, const run::KernelArguments& arguments) {
    std::vector<const run::ArgumentData*> outputs;
    for (const run::ArgumentData& arg : arguments.data()) {
      if (arg.buffer != nullptr && arg.buffer->is_output) outputs.push_back(&arg);
    }
    if (outputs.size() > kMaxOutputs) return std::nullopt;
    digests_.clear();
    for (std::size_t i = 0; i < outputs.size(); ++i) {
      if (!library.launch_digest(outputs[i]->device->data(), outputs[i]->device->size(), digests_.data() + i, blocks_)) {
        return std::nullopt;
      }
    }
    run::check_cuda(cudaStreamSynchronize(nullptr), "cudaStreamSynchronize");
    std::vector<std::uint64_t> per_output;
    for (std::size_t i = 0; i < outputs.size(); ++i) per_output.push_back(digests_[i]);
    return verify::combine_output_digests(per_output);
  }

 private:
  static constexpr std::size_t kMaxOutputs = 16;

  // A persisting-L2 window that solve set stays in force across calls; resetting the lines
  // and zeroing the carve-out gives every sample the same L2 (errors: a device without it).
  // Lines persist only in a carve-out, so with none set (an honest kernel) nothing is reset:
  // the reset is a driver call on every sample otherwise.
  static void reset_persisting_l2() {
    std::size_t limit = 0;
    if (cudaDeviceGetLimit(&limit, cudaLimitPersistingL2CacheSize) == cudaSuccess && limit != 0) {
      cudaCtxResetPersistingL2Cache();
      cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, 0);
    }
    cudaGetLastError();
  }

  std::uint64_t key_;
  std::uint64_t calls_ = 0;
  int blocks_;
  MappedHostValues<unsigned long long, kMaxOutputs> digests_;
};

// A graph of `calls` back-to-back calls of solve, ready to replay.
class CapturedCalls {
 public:
  CapturedCalls() = default;
  ~CapturedCalls() {
    if (exec_ != nullptr) cudaGraphExecDestroy(exec_);
  }
  CapturedCalls(const CapturedCalls&) = delete;
  CapturedCalls& operator=(const CapturedCalls&) = delete;

  // Captures on the per-thread default stream, where a library built with
  // `--default-stream per-thread` launches. Global mode, so a synchronizing solve is refused
  // rather than captured wrongly. Returns why capture failed, or nullopt.
  std::optional<std::string> capture(const run::KernelLibrary& library, const run::KernelArguments& arguments,
                                     int calls) {
    cudaGraph_t graph = nullptr;
    cudaError_t status = cudaStreamBeginCapture(cudaStreamPerThread, cudaStreamCaptureModeGlobal);
    if (status == cudaSuccess) {
      for (int i = 0; i < calls; ++i) library.call(arguments.call());
      status = cudaStreamEndCapture(cudaStreamPerThread, &graph);
    }
    std::optional<std::string> launch_error = library.take_launch_error();
    if (status == cudaSuccess && !launch_error) status = cudaGraphInstantiate(&exec_, graph, 0);
    if (graph != nullptr) cudaGraphDestroy(graph);
    cudaGetLastError();  // capture errors are not sticky; clear them for what follows
    if (status != cudaSuccess) return std::string(cudaGetErrorString(status));
    if (launch_error) return *launch_error;
    calls_ = calls;
    return std::nullopt;
  }
  cudaGraphExec_t exec() const { return exec_; }
  int calls() const { return calls_; }

 private:
  cudaGraphExec_t exec_ = nullptr;
  int calls_ = 1;
};

// What one variant needs while it is being measured.
// What the device's timing needs to know: its maximum SM clock (throttled samples are
// discarded) and the event timer's tick.
struct DeviceTiming {
  double max_clock_mhz = 0;
  double tick_seconds = 0;
};

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
};

// The L2 flush of cold mode: the buffer and how to use it.
struct L2Flusher {
  L2Flusher(L2Flush how, std::size_t bytes, int read_blocks) : method(how), buffer(bytes), blocks(read_blocks) {
    run::check_cuda(cudaMemset(buffer.data(), 0, buffer.size()), "cudaMemset");  // the read flush's sum stays 0
  }

  L2Flush method;
  DeviceScratch buffer;
  int blocks;  // of the read flush: enough to keep every SM's loads in flight

  // Queues the flush on the default stream; the caller waits for it.
  void launch(const run::KernelLibrary& library, int round) const {
    // A library without the shim's read flush (none built by this kopt) is flushed by writing.
    if (method != L2Flush::read || !library.launch_read_flush(buffer.data(), buffer.size(), blocks)) {
      // A different byte each time, so no layer can skip the write as a no-op.
      run::check_cuda(cudaMemsetAsync(buffer.data(), round & 0xff, buffer.size(), nullptr), "cudaMemsetAsync");
    }
  }
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
                   StreamBlocker* blocker) {
  Sample sample{.sm_clock_mhz = probe_and_flush(library, clock, flusher, flush_round)};
  const bool blocked = blocker != nullptr && blocker->hold(library);
  const auto host_start = Clock::now();
  run::check_cuda(cudaEventRecord(start.get(), nullptr), "cudaEventRecord");
  library.call(arguments.call());
  run::check_cuda(cudaEventRecord(stop.get(), nullptr), "cudaEventRecord");
  if (blocked) blocker->release();
  run::check_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  const auto host_end = Clock::now();
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
                         Event& start, Event& stop) {
  Sample sample{.sm_clock_mhz = probe_and_flush(library, clock, nullptr, 0)};
  const auto host_start = Clock::now();
  run::check_cuda(cudaEventRecord(start.get(), cudaStreamPerThread), "cudaEventRecord");
  run::check_cuda(cudaGraphLaunch(graph.exec(), cudaStreamPerThread), "cudaGraphLaunch");
  run::check_cuda(cudaEventRecord(stop.get(), cudaStreamPerThread), "cudaEventRecord");
  run::check_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  const auto host_end = Clock::now();
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

// CUDA's documented resolution of cudaEventElapsedTime ("around 0.5 microseconds"): the tick
// assumed when it cannot be measured.
constexpr double kDocumentedEventTickSeconds = 0.5e-6;
// The tick is measured on kernels whose lengths step by about 9 ns (17 SM cycles at ~2 GHz).
constexpr int kTickReadings = 64;
constexpr long long kTickProbeCycles = 2000, kTickProbeStepCycles = 17;

// The event timer's tick: event pairs around the clock probe spinning a little longer each
// time. Every reading is a whole number of ticks, so the smallest positive difference between
// two readings is one tick (for a timer finer than the 9 ns step, the step: an overestimate,
// which only widens intervals). H200: 32 ns. Without two different readings (no probe in the
// library), the documented resolution.
double measure_event_tick(const run::KernelLibrary& library) {
  ClockProbe probe;
  Event start, stop;
  std::vector<double> readings;
  for (int i = 0; i < kTickReadings; ++i) {
    run::check_cuda(cudaEventRecord(start.get(), nullptr), "cudaEventRecord");
    if (!probe.launch(library, kTickProbeCycles + i * kTickProbeStepCycles)) return kDocumentedEventTickSeconds;
    run::check_cuda(cudaEventRecord(stop.get(), nullptr), "cudaEventRecord");
    run::check_cuda(cudaEventSynchronize(stop.get()), "cudaEventSynchronize");
    float milliseconds = 0;
    run::check_cuda(cudaEventElapsedTime(&milliseconds, start.get(), stop.get()), "cudaEventElapsedTime");
    readings.push_back(milliseconds * 1e-3);
  }
  std::sort(readings.begin(), readings.end());
  double tick = kDocumentedEventTickSeconds;
  for (std::size_t i = 1; i < readings.size(); ++i) {
    const double step = readings[i] - readings[i - 1];
    if (step > 0) tick = std::min(tick, step);
  }
  return tick;
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
                ClockProbe& probe, Event& start, Event& stop, int round, StreamBlocker& blocker) {
  Call call{.seed = inputs.next_seed()};
  inputs.prepare(*v.library, arguments, call.seed);
  call.sample = v.graph ? take_graph_sample(*v.library, *v.graph, probe, start, stop)
                        : take_sample(*v.library, arguments, flush, probe, start, stop, round,
                                      v.blocked ? &blocker : nullptr);
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
                  BenchJobResult& result) {
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
      keep_call(job, v, timed_call(v, arguments, inputs, flush, probe, start, stop, ++round, blocker),
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
    const Call final_call = timed_call(v, arguments, inputs, flush, probe, start, stop, ++round, blocker);
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
  result.phases.setup = std::chrono::duration<double>(Clock::now() - began).count();
  for (std::size_t c = 0; c < job.cases.size(); ++c) {
    measure_case(job, c, variants, timing, flush ? &*flush : nullptr, blocker, inputs, result);
  }
  result.wall_seconds = std::chrono::duration<double>(Clock::now() - began).count();
  return result;
}

namespace {

json settings_to_json(const BenchSettings& s) {
  return {{"mode", timing_mode_name(s.mode)},
          {"l2_flush", l2_flush_name(s.l2_flush)},
          {"target_half_width", s.stopping.target_half_width},
          {"min_samples", s.stopping.min_samples},
          {"min_gpu_seconds", s.stopping.min_gpu_seconds},
          {"timeout_seconds", s.stopping.timeout_seconds},
          {"max_samples", s.stopping.max_samples},
          {"throttle_fraction", s.throttle_fraction},
          {"warmup_calls", s.warmup_calls}};
}

BenchSettings settings_from_json(const json& in) {
  BenchSettings s;
  s.mode = timing_mode_from_name(in.at("mode").get<std::string>());
  s.l2_flush = l2_flush_from_name(in.at("l2_flush").get<std::string>());
  s.stopping.target_half_width = in.at("target_half_width");
  s.stopping.min_samples = in.at("min_samples");
  s.stopping.min_gpu_seconds = in.at("min_gpu_seconds");
  s.stopping.timeout_seconds = in.at("timeout_seconds");
  s.stopping.max_samples = in.at("max_samples");
  s.throttle_fraction = in.at("throttle_fraction");
  s.warmup_calls = in.at("warmup_calls");
  return s;
}

}  // namespace

json worker_phases_to_json(const WorkerPhases& phases) {
  return {{"setup", phases.setup}, {"inputs", phases.inputs}, {"warmup", phases.warmup},
          {"sampling", phases.sampling}, {"recheck", phases.recheck}};
}

WorkerPhases worker_phases_from_json(const json& in) {
  return {.setup = in.at("setup"), .inputs = in.at("inputs"), .warmup = in.at("warmup"),
          .sampling = in.at("sampling"), .recheck = in.at("recheck")};
}

json bench_job_to_json(const BenchJob& job) {
  json variants = json::array();
  for (const BenchVariant& v : job.variants) {
    variants.push_back({{"label", v.label}, {"library", v.library.string()}, {"budgeted", v.budgeted}});
  }
  json cases = json::array();
  for (const spec::BoundCase& c : job.cases) cases.push_back(run::case_to_json(c));
  return {{"kind", "bench"},
          {"schema_version", 1},
          {"variants", variants},
          {"signature", run::signature_to_json(job.signature)},
          {"cases", cases},
          {"sample_key", job.sample_key},
          {"order_seed", job.order_seed},
          {"settings", settings_to_json(job.settings)},
          {"device", job.device}};
}

BenchJob bench_job_from_json(const json& in) {
  BenchJob job;
  for (const json& v : in.at("variants")) {
    job.variants.push_back({v.at("label"), v.at("library").get<std::string>(), v.value("budgeted", false)});
  }
  job.signature = run::signature_from_json(in.at("signature"));
  for (const json& c : in.at("cases")) job.cases.push_back(run::case_from_json(c));
  job.sample_key = in.at("sample_key");
  job.order_seed = in.value("order_seed", std::uint64_t{1});
  job.settings = settings_from_json(in.at("settings"));
  job.device = in.at("device");
  return job;
}

json bench_result_to_json(const BenchJobResult& result) {
  json samples = json::array();
  for (const VariantSamples& s : result.samples) {
    samples.push_back({{"label", s.label},
                       {"case", s.case_name},
                       {"gpu_seconds", s.gpu_seconds},
                       {"host_seconds", s.host_seconds},
                       {"sm_clock_mhz", s.sm_clock_mhz},
                       {"throttled_discarded", s.throttled_discarded},
                       {"stop_reason", s.stop_reason},
                       {"first_call_seconds", s.first_call_seconds},
                       {"calls_per_sample", s.calls_per_sample},
                       {"resolution_seconds", s.resolution_seconds},
                       {"timing_note", s.timing_note},
                       {"sample_seeds", s.sample_seeds},
                       {"sample_digests", s.sample_digests},
                       {"final_seed", s.final_seed},
                       {"final_digest", s.final_digest},
                       {"digests", s.digests},
                       {"recheck", s.recheck ? verify::run_record_to_json(*s.recheck) : json(nullptr)}});
  }
  return {{"kind", "bench"}, {"device", result.device}, {"mode", result.mode}, {"samples", samples},
          {"event_tick_seconds", result.event_tick_seconds}, {"wall_seconds", result.wall_seconds},
          {"phase_seconds", worker_phases_to_json(result.phases)}};
}

BenchJobResult bench_result_from_json(const json& in) {
  BenchJobResult result;
  result.device = in.at("device");
  result.mode = in.at("mode");
  result.wall_seconds = in.at("wall_seconds");
  result.event_tick_seconds = in.value("event_tick_seconds", 0.0);
  result.phases = worker_phases_from_json(in.at("phase_seconds"));
  for (const json& s : in.at("samples")) {
    VariantSamples v;
    v.label = s.at("label");
    v.case_name = s.at("case");
    v.gpu_seconds = s.at("gpu_seconds").get<std::vector<double>>();
    v.host_seconds = s.at("host_seconds").get<std::vector<double>>();
    v.sm_clock_mhz = s.at("sm_clock_mhz").get<std::vector<double>>();
    v.throttled_discarded = s.at("throttled_discarded");
    v.stop_reason = s.at("stop_reason");
    v.first_call_seconds = s.at("first_call_seconds");
    v.calls_per_sample = s.value("calls_per_sample", 1);
    v.resolution_seconds = s.value("resolution_seconds", 0.0);
    v.timing_note = s.value("timing_note", "");
    v.sample_seeds = s.value("sample_seeds", std::vector<std::uint64_t>{});
    v.sample_digests = s.value("sample_digests", std::vector<std::uint64_t>{});
    v.final_seed = s.value("final_seed", std::uint64_t{0});
    v.final_digest = s.value("final_digest", std::uint64_t{0});
    v.digests = s.value("digests", false);
    if (!s.at("recheck").is_null()) v.recheck = verify::run_record_from_json(s.at("recheck"));
    result.samples.push_back(std::move(v));
  }
  return result;
}

}  // namespace kopt::measure
