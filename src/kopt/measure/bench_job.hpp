#pragma once
// A timing job, run inside a worker: the variants of one problem measured interleaved, each
// sample one call of solve or, for short kernels, a batch of calls; every sample kept.
//
// Integrity: before every call of solve the inputs are regenerated on the GPU from a fresh
// secret seed and the outputs are poisoned again, the persisting-L2 state is reset, and after
// it the outputs' digest is taken; kopt's own process verifies some timed calls afterwards
// (measure/timed_call_audit.hpp).
//
// Cold mode (the default): before each sample the L2 is flushed by reading a buffer of twice
// the device's L2 size, which leaves it full of clean lines (`--l2-flush write` writes a buffer
// of the L2's size instead, as nvbench does; that leaves dirty lines, which the timed kernel
// must write back: docs/measurement.md, "Cold L2"); a stream blocker holds the default stream while CUDA
// events on it bracket the sample's calls of solve, so that they time the GPU's work and not the
// host's launch path; then the device is synchronized, and the host clock, read from the
// blocker's release (the GPU's start) to the end, is compared with the events to catch work
// that escapes them (a non-blocking side stream).
// Short kernels (call_batch.hpp): after the warm-up each case chooses n, the calls of one
// sample, so that a sample lasts ~50 µs (at most --max-calls-per-sample); n argument sets are
// allocated (fewer when they do not fit a share of the device's memory), and before each
// sample every set gets fresh inputs and poisoned outputs, then the L2 is flushed once, then
// the n calls run back to back between the events, each on its own set; the sample is the
// events' time ÷ n, and each call keeps its own seed and digest. Every variant of a case gets
// the same n, so the events' fixed cost is shared alike.
// The variants take one sample each per round, in a fresh random order every round
// (round_order.hpp), and stop together once each kernel's median is known well enough
// (stopping_criterion.hpp); the reference is timed no longer than the first kernel.
// Before each sample kopt's clock probe measures the SM clock; samples taken below
// `throttle_fraction` of the device's maximum clock are discarded and counted.
// Warm mode skips the flush (batches included).
//
// Graph mode is for kernels of a few microseconds, whose launch overhead and event
// resolution would otherwise dominate: solve is captured into a CUDA graph as N back-to-back
// calls (N chosen so that one replay lasts ~200 µs) and each sample is one replay's time ÷ N,
// warm, all N calls on one set of inputs (batches give every call its own, cold). It needs
// the library compiled with `--default-stream per-thread`, because the legacy
// default stream cannot be captured; when capture fails anyway (solve synchronizes, or
// launches on streams it does not join) that variant is measured warm and says why.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kopt/measure/stopping_criterion.hpp"
#include "kopt/spec/kernel_signature.hpp"
#include "kopt/spec/problem_spec.hpp"
#include "kopt/verify/check_job.hpp"

namespace kopt::measure {

enum class TimingMode { cold, warm, graph };

std::string_view timing_mode_name(TimingMode mode);
TimingMode timing_mode_from_name(std::string_view name);  // throws input_error

// How cold mode evicts the L2 before a sample.
enum class L2Flush { read, write };

std::string_view l2_flush_name(L2Flush flush);
L2Flush l2_flush_from_name(std::string_view name);  // throws input_error
// The flush buffer's size for a device with an L2 of `l2_bytes`.
std::int64_t l2_flush_bytes(L2Flush flush, std::int64_t l2_bytes);

struct BenchSettings {
  TimingMode mode = TimingMode::cold;
  L2Flush l2_flush = L2Flush::read;  // cold mode only
  StoppingSettings stopping;
  double throttle_fraction = 0.9;   // of the device's maximum SM clock
  int warmup_calls = 3;
  // Cold and warm mode: a sample is a batch of up to this many calls, each on its own fresh
  // inputs, so that it lasts ~50 µs (call_batch.hpp); 1: one call per sample.
  int max_calls_per_sample = 64;
};

struct BenchVariant {
  std::string label;                   // "A", "sgemm_naive.cu", "reference"
  std::filesystem::path library;
  // Timed no longer than the first kernel (the reference: CaseStopping in stopping_criterion.hpp).
  bool budgeted = false;
  // Keep some timed calls' outputs for a comparison within tolerance: the check found them
  // not bitwise reproducible, so no digest can verify them (measure/output_retention.hpp).
  bool retain_outputs = false;
  // Read a share of its samples' outputs back through kopt's own runtime before their digests
  // (output_readback.hpp). Off for the reference: what the read-back catches, work deferred past
  // the sample's end, could only make the reference look faster and a kernel slower beside it.
  bool read_back_outputs = true;
};

struct BenchJob {
  std::vector<BenchVariant> variants;
  spec::KernelSignature signature;
  std::vector<spec::BoundCase> cases;
  // Every call of solve, warm-up and timed, gets fresh inputs of its own seed, drawn from this
  // secret key; the seeds and each timed call's output digest travel back, so that kopt can
  // verify timed calls afterwards in another process (docs/integrity.md).
  std::uint64_t sample_key = 1;
  // The variants' order in each round of sampling is drawn from this (measure/round_order.hpp).
  std::uint64_t order_seed = 1;
  BenchSettings settings;
  int device = 0;
  // The pipe to kopt's parent on which each sample's begin and end are signalled
  // (sample_witness.hpp); -1: none.
  int witness_fd = -1;
  // Where the worker writes the outputs it kept (a folder beneath its own); empty: none kept.
  std::filesystem::path retention_dir;
  // The variants are Python solves (Triton kernels) in the Python-hosted worker. Their holds
  // are judged by the Python allowance (SolveHost::python), and they are timed alike: where one
  // variant cannot be held (its solve waits for the device or keeps the host long), none is, so
  // that which variant is held never decides a verdict (docs/triton.md, "Timing"). A .cu bench
  // keeps each variant's own.
  bool python_hosted = false;
};

// The samples of one variant on one case. Times in seconds.
struct VariantSamples {
  std::string label;
  std::string case_name;
  std::vector<double> gpu_seconds;        // kept samples: event time per call (the sample's ÷ calls_per_sample)
  std::vector<double> host_seconds;       // host wall time of the same samples, per call
  std::vector<double> sm_clock_mhz;       // measured just before each kept sample; empty without a probe
  std::size_t throttled_discarded = 0;
  std::string stop_reason;
  double first_call_seconds = 0;          // host wall time of the very first call
  int calls_per_sample = 1;               // calls of solve in one sample: a batch, or a replayed graph
  // One tick of the event timer as a share of one sample (tick / calls_per_sample): a sample
  // may be off by this much either way (statistics.hpp, widened_by_resolution). 0: unknown.
  double resolution_seconds = 0;
  std::string timing_note;                // "batch of 25 calls...", "graph of 32 calls", why graph mode fell back
  std::string l2;                         // how the L2 stood before each sample (call_batch.hpp, l2_policy)
  // The inputs' seed and the outputs' digest of every call of every kept sample: one entry per
  // call of a batch (calls_per_sample entries per sample), one per replay in graph mode (all
  // its calls share one input set); and of the last call of one more sample after the last,
  // made the same way but not timed.
  std::vector<std::uint64_t> sample_seeds;
  std::vector<std::uint64_t> sample_digests;
  std::uint64_t final_seed = 0;
  std::uint64_t final_digest = 0;
  std::uint32_t final_witness_id = 0;     // the id under which that last sample was signalled
  bool digests = false;                   // false: the library has no device digest
  // The id under which each kept sample was signalled to kopt's parent (parallel to
  // gpu_seconds; sample_witness.hpp); empty without a witness.
  std::vector<std::uint32_t> witness_ids;
  // A variant that keeps outputs (BenchVariant::retain_outputs): the seeds of the calls whose
  // outputs the worker kept (output_retention.hpp), or why it kept none. They travel here, in
  // the result that carries the nonce, not in a file of the kernel-writable folder.
  std::vector<std::uint64_t> kept_seeds;
  std::string kept_note;
  std::optional<verify::RunRecord> recheck;  // the audit of timed calls, set by kopt's own process
  // Host threads, child processes and armed timers that appeared while this variant's library
  // was loaded or its solve ran, and were still there after it returned (run/host_agents.hpp):
  // what can act on another variant's sample. Not counted in a Python-hosted worker (Python
  // starts its own).
  std::vector<std::string> agents_left;
  // Seccomp filters, tracers and SIGSYS handlers that appeared while this variant's library was
  // loaded or its solve ran (run/host_agents.hpp): what can answer the worker's system calls,
  // the getrandom that draws each timed call's seed among them.
  std::vector<std::string> interceptors_installed;
  // Pointers of kopt's own data (the runtime's table of driver entry points, the GOT) that led
  // into code before any library was loaded and led into code loaded since after this
  // variant's calls (run/code_pointers.hpp): kopt's calls through them ran the kernel's code.
  std::vector<std::string> code_pointers_redirected;
  // Device-wide settings this variant's calls changed and left changed after a sample ("cudaLimit...
  // 64 -> 32"; run/device_settings.hpp): each was put back before anything else ran. Those its
  // warm-up changed are named apart (put back as well, but where CUDA refuses).
  std::vector<std::string> settings_changed;
  std::vector<std::string> settings_set_in_warmup;
  // Which streams solve's work went to (run/stream_watch.hpp; docs/integrity.md, "Streams"):
  // work sent outside the default stream's order, and of it what solve had not joined back
  // when it returned; what one unbatched call launches; calls of a batch that launched
  // something else; each kept batch's longest call time ÷ its shortest (call_batch.hpp,
  // call_spread). streams_unwatched: why the worker could not watch (empty: it did).
  std::vector<std::string> streams_outside;
  std::vector<std::string> work_unjoined;
  std::vector<std::string> unbatched_launches;
  std::vector<std::string> batch_calls_unlike;
  std::vector<double> batch_call_spread;
  std::string streams_unwatched;
};

// Where the timing worker's wall time went, in seconds, summed over cases: what a bench costs
// beyond its samples (bench.json "worker_phase_seconds"; docs/measurement.md, "Cost").
struct WorkerPhases {
  double setup = 0;     // the device, the kernel libraries, the flush buffer
  double inputs = 0;    // generating and uploading each case's inputs
  double warmup = 0;    // the warm-up calls (and graph capture)
  double sampling = 0;  // the samples, the flush and clock probe of each included
  double recheck = 0;   // each variant's final call on new inputs after its samples
  // Where the sampling phase went, summed over its samples (and the recheck's): fresh inputs and poisoned outputs
  // for every argument set; the clock probe, flush, calls and synchronization; the outputs'
  // digests; the outputs read back to the host before them (output_readback.hpp). The rest of
  // `sampling` is the loop's own bookkeeping (retention, stopping rule).
  double sampling_inputs = 0;
  double sampling_timed = 0;
  double sampling_digests = 0;
  double sampling_readback = 0;
};

struct BenchJobResult {
  nlohmann::json device;
  std::string mode;
  std::vector<VariantSamples> samples;    // [case][variant], flattened case-major
  double event_tick_seconds = 0;          // the CUDA event timer's tick, measured (measure_event_tick)
  double wall_seconds = 0;
  WorkerPhases phases;
};

nlohmann::json worker_phases_to_json(const WorkerPhases& phases);
WorkerPhases worker_phases_from_json(const nlohmann::json& in);

nlohmann::json bench_job_to_json(const BenchJob& job);
BenchJob bench_job_from_json(const nlohmann::json& in);
nlohmann::json bench_result_to_json(const BenchJobResult& result);
BenchJobResult bench_result_from_json(const nlohmann::json& in);

// Worker side.
BenchJobResult execute_bench_job(const BenchJob& job);

}  // namespace kopt::measure
