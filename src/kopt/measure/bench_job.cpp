#include "kopt/measure/bench_job.hpp"

#include <cuda_runtime.h>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
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
#include "kopt/measure/timed_sample.hpp"
#include "kopt/measure/bench_worker_state.hpp"
#include "kopt/measure/stream_judgement.hpp"
#include "kopt/measure/worker_streams.hpp"
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
  if (kit.witness.on() && v.read_back && kit.readback.next(v.readbacks, v.readback_bytes, last)) {
    ++v.readbacks;
    v.readback_bytes += output_bytes(sets);
    kit.witness.record('R', id, kit.readback.digests(sets));
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
  v.samples.unbatched_launches = run::describe_each(v.unbatched_launches);
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

// Before any variant's first call of the case: a kernel that allocates device memory in its
// warm-up cannot starve the memory its own kept outputs need (an unverifiable variant is
// flagged anyway, bench_assessment.cpp; this keeps honest ones from being). What kopt itself
// started since the libraries were loaded is nobody's. The device's settings as the worker
// found them, before any library was loaded: what a library's constructors or an earlier case
// changed is put back (where CUDA lets it) before this case's first call.
void start_case(std::size_t case_index, ArgumentSets& sets, SampleKit& kit) {
  kit.retention.start_case(case_index, sets.first());
  kit.agents = run::HostAgents::now();
  if (kit.settings != nullptr) {
    kit.settings->restore();
    *kit.settings = run::DeviceSettings::now();
  }
}

// Every variant warmed up on the case; which of them are budgeted (CaseStopping).
std::vector<bool> warm_up_variants(const BenchJob& job, const spec::BoundCase& bound_case,
                                   std::vector<VariantState>& variants, ArgumentSets& sets, SampleKit& kit) {
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
  return budgeted;
}

// Each variant's calls per sample, L2 policy, resolution and stopping criterion.
void shape_samples(const BenchJob& job, std::vector<VariantState>& variants, const DeviceTiming& timing, int calls) {
  for (VariantState& v : variants) {
    if (!v.graph) v.samples.calls_per_sample = calls;
    v.samples.l2 = std::string(l2_policy(job.settings.mode, v.samples.calls_per_sample));
    v.samples.resolution_seconds = timing.tick_seconds / v.samples.calls_per_sample;
    v.criterion = StoppingCriterion(job.settings.stopping, v.samples.resolution_seconds);
  }
}

// Rounds of one sample per variant still sampling, in a random order each round, until every
// variant's criterion (or the case's budget) stops it. Returns the rounds taken.
int sample_until_stopped(const BenchJob& job, std::size_t case_index, std::vector<VariantState>& variants,
                         const std::vector<run::KernelArguments*>& batch_sets, const DeviceTiming& timing,
                         const std::vector<bool>& budgeted, SampleKit& kit) {
  SampleProgress progress(job.cases[case_index].name, variants.size());
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
  return round;
}

// One more sample each, taken exactly like a timed one; its last call is audited: a kernel
// that stopped working after some number of calls is still not working there.
void take_final_samples(std::vector<VariantState>& variants, const std::vector<run::KernelArguments*>& batch_sets,
                        int round, SampleKit& kit, BenchJobResult& result) {
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
}

void measure_case(const BenchJob& job, std::size_t case_index, std::vector<VariantState>& variants,
                  const DeviceTiming& timing, SampleKit& kit, BenchJobResult& result) {
  Stopwatch mark;  // each lap, one phase of the worker's time
  const spec::BoundCase& bound_case = job.cases[case_index];
  ArgumentSets sets(bound_case);
  start_case(case_index, sets, kit);
  result.phases.inputs += mark.lap();
  const std::vector<bool> budgeted = warm_up_variants(job, bound_case, variants, sets, kit);
  result.phases.warmup += mark.lap();
  const int calls = choose_calls(job, variants, sets);
  const std::vector<run::KernelArguments*> batch_sets = sets.first(calls);
  shape_samples(job, variants, timing, calls);
  result.phases.inputs += mark.lap();
  run::report_progress(fmt::format("case {}: measuring", bound_case.name));
  const int rounds = sample_until_stopped(job, case_index, variants, batch_sets, timing, budgeted, kit);
  result.phases.sampling += mark.lap();
  take_final_samples(variants, batch_sets, rounds, kit, result);
  kit.retention.finish_case(sets.first(), std::span(result.samples).last(variants.size()));
  result.phases.recheck += mark.lap();
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
  std::unique_ptr<run::StreamWatch> streams = run::StreamWatch::start(streams_unwatched);

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
                       .criterion = StoppingCriterion(job.settings.stopping),
                       .read_back = variant.read_back_outputs};
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
  OutputReadback readback(readback_rule());
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
