#pragma once
// The parent's witness of each timed sample (docs/integrity.md, "Outside witnesses").
//
// The kernel's code runs inside the timing worker, so every clock the worker reads (CUDA's
// event timer, the host clock) is a clock the kernel can patch: cheat_timer_patch patches the
// events, cheat_clock_patch patches both, and the two then agree on a forged time. The
// witness is a clock the kernel does not share: the worker writes one short line on a pipe
// to kopt's parent right before it records a sample's start event ("B 17") and right after
// it has synchronized the sample's end ("E 17"); a thread of the parent timestamps each line
// with the parent's own monotonic clock as it arrives. Once the worker has exited, each kept
// sample's reported time is held against the parent's span around it.
//
// The rules are one-sided: the span holds the event time plus kopt's own overhead (records,
// launches, synchronization, the pipe's latency), so it may exceed the reported time by that
// overhead and a stated slack (data/witness.toml), never the reverse by much. The overhead is
// measured, not assumed: right before each timed sample the worker signals an empty one (its
// seeds told as none, the same records and synchronization around no work, only kopt's code
// inside), and the median of a variant's empty spans is its allowance (a loaded host's late
// wake-ups are in both, so they no longer read as a forged timer). Samples that report much less
// than the span, samples the parent never saw, and samples that together claim more time than
// the whole sampling took are FLAGs.
//
// The worker also tells each sample's record as it is made: its calls' seeds ("S 17 1f,a0")
// before solve runs, their digests ("D 17 ...") once taken. The record that comes back in the
// result lives in the worker's memory, where a later call can rewrite it; what the parent heard
// cannot be, and the two are held against each other (record_differences).
//
// The worker's writes are the worker's, and the kernel runs in it: a kernel can write lines
// of its own to the same pipe. Forging the witness therefore needs work aimed at kopt's
// channel, timed so that the parent's clock agrees, not just a patch of the process's clocks.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "kopt/measure/bench_job.hpp"
#include "kopt/core/clock.hpp"

namespace kopt::measure {

// The file descriptor the timing worker finds the witness pipe on (core/process.hpp's
// ProcessSpec::inherited_fd puts it there).
inline constexpr int kWitnessFd = 3;

// ---- Worker side ------------------------------------------------------------------------

// Writes the begin and end signals of each sample; does nothing without a pipe (fd < 0).
// Write errors are ignored: a worker that cannot signal leaves samples the parent never saw,
// and the parent judges that.
//
// It also tells the parent each sample's record as it is made: the calls' seeds before solve
// runs, their digests right after they are taken. The worker's own record (VariantSamples) is
// in memory the kernel can write during any later call; what the parent heard cannot change.
class SampleSignals {
 public:
  explicit SampleSignals(int fd = -1) : fd_(fd) {}
  bool on() const { return fd_ >= 0; }
  // The id of a new sample, signalled by the begin or hold that follows (0 when off).
  std::uint32_t reserve() { return on() ? ++last_id_ : 0; }
  // Signals the start of a new sample; returns its id (0 when off).
  std::uint32_t begin();
  // A sample whose calls are queued behind kopt's stream blocker: hold(id) signals the blocker
  // in place, before solve is called, begin(id) its release.
  std::uint32_t hold();
  void hold(std::uint32_t id);
  void begin(std::uint32_t id);
  void end(std::uint32_t id);
  // Sample `id`'s seeds ('S', before its calls), digests ('D', after them) or the host digests
  // of its outputs read back before those ('R', output_readback.hpp).
  void record(char kind, std::uint32_t id, const std::vector<std::uint64_t>& values) const;

 private:
  void send(char kind, std::uint32_t id) const;
  void write_line(const std::string& line) const;
  int fd_;
  std::uint32_t last_id_ = 0;
};

// "B 17\n": one signal as it travels on the pipe.
std::string signal_line(char kind, std::uint32_t id);
// "S 17 1f,a0\n": part of a sample's record (hex values), at most kRecordValuesPerLine of them
// a line, so that every line is one write below PIPE_BUF; longer records take several lines.
inline constexpr std::size_t kRecordValuesPerLine = 64;
std::vector<std::string> record_lines(char kind, std::uint32_t id, const std::vector<std::uint64_t>& values);

// ---- Parent side ------------------------------------------------------------------------

// The parent's record of the signals: per sample id, when its begin and end arrived
// (seconds on the parent's monotonic clock, from the witness's start).
struct WitnessedSpans {
  struct Span {
    std::optional<double> held, begin, end;  // held: the blocker in place, before solve's calls
    std::vector<std::uint64_t> seeds, digests;  // as the worker told them (SampleSignals::record)
    // The host digests of the sample's outputs as kopt read them back before its device digests
    // (output_readback.hpp), for the samples it chose.
    std::vector<std::uint64_t> readback;
    bool seeds_told = false, digests_told = false, readback_told = false;
    std::optional<double> digests_at;  // when the first line of its digests arrived
  };
  std::map<std::uint32_t, Span> spans;
  std::size_t malformed_lines = 0;   // lines kopt's worker never writes
  std::size_t repeated_signals = 0;  // a second begin or end for one id
  std::optional<double> first_begin, last_end;
  bool listened = false;             // false: no pipe (the witness could not be set up)

  // The parent's span of sample `id`, when both its signals arrived in order.
  std::optional<double> seconds(std::uint32_t id) const;
  // From the blocker in place to its release: how long solve's calls kept the host while the
  // GPU was held (none for a sample that was not held).
  std::optional<double> held_seconds(std::uint32_t id) const;
  // From the sample's end signal to its digests' first line: kopt's digests of its outputs,
  // launched through the shim in the kernel's own library (docs/integrity.md, "What kopt cannot
  // do (yet)": work a hook did there would be here). Measured, not yet held to a rule.
  std::optional<double> digest_seconds(std::uint32_t id) const;
  // The span of the empty sample the worker signals right before timed sample `id` (under id - 1,
  // its seeds told as none and no digests): kopt's own overhead around no work. None when that
  // id is not such a sample.
  std::optional<double> empty_span_before(std::uint32_t id) const;
  bool tampered() const { return malformed_lines > 0 || repeated_signals > 0; }
};

// Splits the pipe's bytes into signals; each complete line gets the time its last byte was
// read. Bytes of a partial line wait for the next chunk.
class SignalParser {
 public:
  void feed(std::string_view bytes, double arrived_seconds);
  // A partial line left at the end counts as malformed.
  WitnessedSpans finish();

 private:
  void take_line(std::string_view line, double arrived_seconds);
  bool take_record(std::string_view line, double arrived_seconds);
  std::string pending_;
  WitnessedSpans spans_{.listened = true};
};

// The pipe and the thread that reads it: construct before starting the worker, hand
// child_fd() to the worker's ProcessSpec::inherited_fd, call finish() once the worker has
// exited. Without a pipe (pipe2 failed), child_fd() is -1 and finish() says not listened.
class SampleWitness {
 public:
  SampleWitness();
  ~SampleWitness();
  SampleWitness(const SampleWitness&) = delete;
  SampleWitness& operator=(const SampleWitness&) = delete;

  int child_fd() const { return write_fd_; }
  WitnessedSpans finish();

 private:
  void read_until_stopped();
  int read_fd_ = -1, write_fd_ = -1;
  Stopwatch origin_;  // the signals' times are seconds since the witness began
  std::atomic<bool> stop_{false};
  SignalParser parser_;
  std::thread reader_;
};

// ---- The rules --------------------------------------------------------------------------

// data/witness.toml [sample].
struct SampleWitnessRule {
  double slack_seconds = 50e-6;
  double slack_fraction = 0.2;
  double flag_share = 0.5;
  double sum_slack_seconds = 1e-3;
  // The most of kopt's measured overhead (the median span of a variant's empty samples) that is
  // allowed: a host slowed beyond it, by whatever means, cannot widen the allowance further.
  double baseline_limit_seconds = 50e-6;
  // A held sample's calls took long on the host (work done before the GPU was released, out of
  // every clock's sight) when the hold lasted more than max(held_seconds_per_call × calls,
  // held_fraction × the reported time).
  double held_seconds_per_call = 100e-6;
  double held_fraction = 0.25;
  // The blocker lets go by itself after this; a timed sample held this long (90 % of it, for
  // the host's own lag) waited for the GPU while held, which its warm-up did not.
  double blocker_timeout_seconds = 0.05;
};

// Who runs solve in the timing worker: kopt's C++ (a .cu kernel's library) or the Python host
// (a Triton kernel's solve), whose calls keep the host longer and get their own hold allowance.
enum class SolveHost { native, python };

// Loaded once; throws environment Error on a bad file. For SolveHost::python,
// held_seconds_per_call is the file's held_seconds_per_python_call.
const SampleWitnessRule& sample_witness_rule(SolveHost host = SolveHost::native);

inline SolveHost solve_host(const BenchJob& job) { return job.python_hosted ? SolveHost::python : SolveHost::native; }

// One variant's kept samples against the parent's spans.
struct VariantWitness {
  std::size_t samples = 0;
  std::size_t witnessed = 0;        // samples whose span the parent saw whole
  std::size_t short_samples = 0;    // reported less than the span beyond the slack
  std::size_t held_samples = 0;     // queued behind the blocker (a hold signal arrived)
  std::size_t long_held_samples = 0;  // whose calls kept the host beyond the rule
  std::size_t timed_out_holds = 0;    // held until the blocker let go by itself
  double median_held_seconds = 0;   // per sample, over held samples
  double median_reported_seconds = 0;  // per sample (calls_per_sample calls), over witnessed samples
  double median_span_seconds = 0;
  std::size_t empty_samples = 0;    // witnessed empty samples before its witnessed samples
  // The median span of those: kopt's own overhead, allowed beyond each reported time (at most
  // rule.baseline_limit_seconds; 0 without empty samples, so that none means no allowance).
  double baseline_seconds = 0;
  double median_digest_seconds = 0;  // over samples whose digests' line arrived after their end
  std::size_t readback_samples = 0;     // samples whose outputs kopt read back and digested on the GPU too
  std::size_t readback_mismatches = 0;  // of those, whose outputs changed before the device digests
};

// A sample's reported time is gpu_seconds × calls_per_sample: the span covers the whole
// sample (a graph replay of several calls).
VariantWitness witness_variant(const VariantSamples& samples, const WitnessedSpans& spans,
                               const SampleWitnessRule& rule);
// Whether one sample's reported time falls short of the parent's span beyond kopt's measured
// overhead (`baseline_seconds`) and the slack.
bool short_of_span(double reported_seconds, double span_seconds, const SampleWitnessRule& rule,
                   double baseline_seconds = 0);
// Whether a held sample's calls kept the host beyond the rule (see SampleWitnessRule).
bool held_too_long(double held_seconds, double reported_seconds, int calls, const SampleWitnessRule& rule);
// Whether more than rule.flag_share of the witnessed samples were short.
bool mostly_short(const VariantWitness& witness, const SampleWitnessRule& rule);
// Whether more than rule.flag_share of the held samples were held too long.
bool mostly_held_too_long(const VariantWitness& witness, const SampleWitnessRule& rule);
// Whether the witness fails the variant: samples it never saw, mostly short ones, mostly held
// too long, or outputs that changed after a sample before kopt's digests (what the
// optimization loop turns into a failed outcome).
bool witness_fails(const VariantWitness& witness, const SampleWitnessRule& rule);

// Where a variant's record (its kept samples' seeds and digests, in order; the last call's;
// the kept outputs' seeds) differs from what the worker told the parent as each sample was
// made, one phrase each; empty when it agrees.
std::vector<std::string> record_differences(const VariantSamples& samples, const WitnessedSpans& spans);

// The FLAG lines of one timing worker's samples (empty when all agree). Without a pipe the
// parent listened on, none.
std::vector<std::string> witness_flags(const std::vector<VariantSamples>& samples, const WitnessedSpans& spans,
                                       const SampleWitnessRule& rule);

nlohmann::json variant_witness_to_json(const VariantWitness& witness);

}  // namespace kopt::measure
