#pragma once
// The audit of timed calls, in kopt's own process after the timing worker has exited: for
// each kernel (not the trusted reference), the call after its last sample and two timed calls
// chosen at random (which the kernel could not know in advance) are made again in a fresh
// worker (AuditWorkers: set up during the checks, given the kernel only now) on the same
// seeds, each as the timing loop makes a call (inputs generated on the GPU,
// outputs poisoned, the digest taken on the GPU: verify::CheckJob::single_calls); their output
// digests must equal what the timed calls wrote. A kernel that skipped work, replayed an
// earlier answer or computed garbage while timed fails here, whatever it did to look correct
// when checked (docs/integrity.md).
//
// The same worker also makes again, shuffled among them and made the same way, the calls of
// the correctness check on that case, whose digests must equal the check's. A kernel that
// could tell the audit's worker from the check's (by its folder, its cases, the time since
// kopt started, how often it is called per input) and skip work there as it did while timed
// fails those; one that works there fails the timed calls'. All seeds are secret random
// numbers and every call of the worker is made alike: within it, the two kinds look alike.
//
// A variant whose check found its outputs not bitwise reproducible (retain_outputs) is not
// audited here: no digest could match, and a chance match would be no proof. Its kept timed
// outputs are compared with the reference within tolerance instead (tolerance_audit.hpp).

#include <chrono>
#include <cstdint>
#include <memory>
#include <random>
#include <string_view>
#include <vector>

#include "kopt/core/files.hpp"
#include "kopt/measure/bench_job.hpp"
#include "kopt/run/worker_launcher.hpp"
#include "kopt/verify/check.hpp"

namespace kopt::measure {

// How many timed calls per variant and case are audited besides the final one
// (data/witness.toml [audit]). A kernel that skips work on a share f of its timed calls, at
// random or by any pattern it likes, escapes only when every audited call is one it did not
// skip: with n audited calls, (1 - f)^n. In batches (short kernels) every call skipped shortens
// its sample, so a skipped quarter is a quarter faster; n is therefore as large as the audit's
// kernel time allows (kernel_seconds ÷ the median call), within [min_timed_calls,
// max_timed_calls].
struct AuditRule {
  std::size_t min_timed_calls = 8;
  std::size_t max_timed_calls = 32;
  double kernel_seconds = 0.1;
};
const AuditRule& audit_rule();
std::size_t audited_timed_calls(const VariantSamples& samples, const AuditRule& rule);
// The audit's note on a variant whose outputs vary between runs on the same inputs (float
// atomics): digests cannot tell skipped work from that, so its timed calls go unverified.
inline constexpr std::string_view kUnverifiableNote =
    "not bitwise reproducible: its timed outputs cannot be compared by digest";

// The (position, seed, digest) of the calls audited for one variant on one case; position
// -1 is the call after the last sample, kCheckedCall a call of the correctness check.
inline constexpr int kCheckedCall = -2;
struct AuditedCall {
  int position = -1;
  std::uint64_t seed = 0;
  std::uint64_t digest = 0;
};

// The passed runs of `check` on `case_name`, as calls to make again (position kCheckedCall).
std::vector<AuditedCall> checked_calls(const verify::CheckReport& check, const std::string& case_name);

// The call after the last sample, then `timed_calls` distinct timed calls drawn at random (all
// of them when there are fewer).
std::vector<AuditedCall> choose_audited_calls(const VariantSamples& samples, std::size_t timed_calls,
                                              std::mt19937_64& random);

// Compares the digests the timed calls wrote with those of the verifying runs; returns the
// audit as a run record: passed, or a mismatch finding naming how many calls differed.
verify::RunRecord audit_record(const VariantSamples& samples, const std::vector<AuditedCall>& audited,
                               const std::vector<verify::RunRecord>& verifying_runs);

// The audit makes one call per seed (verify::CheckJob::single_calls), which cannot tell
// whether a kernel's outputs vary between runs on the same inputs: the check, which calls
// twice, can. Marks the verifying runs of every case the check found not bitwise
// reproducible, so that their digests are noted as unverifiable rather than failed.
void with_reproducibility_of(const verify::CheckReport& check, std::vector<verify::RunRecord>& verifying_runs);

// At most this many audit workers run at once: the audit is untimed, so workers sharing the
// GPU change no number, and the ~1 s each spends starting (process, CUDA context, the case's
// buffers) overlaps with the others' (docs/measurement.md).
inline constexpr std::size_t kMaxAuditWorkersAtOnce = 4;

// How many audit workers run at once for `job`: each holds every timed case's buffers, and
// together they hold at most a quarter of the device's memory; at least one, at most
// kMaxAuditWorkersAtOnce (one where the memory is unknown).
std::size_t audit_workers_at_once(const BenchJob& job, std::int64_t device_memory_bytes);

// The audit's workers, started during the checks so that their CUDA set-up (~0.3 s each)
// overlaps the checks' work instead of following the timing (docs/measurement.md). Each is a
// run::PrestartedWorker: it loads no kernel and knows no seed before its job comes, and waits
// with no work on the GPU while the timing runs. Its folder is laid out as a check's, as a
// worker started at the audit would have it.
class AuditWorkers {
 public:
  // `count` workers are started by the first start(); none where count is 0 (every audit
  // then starts its worker at the audit).
  AuditWorkers(verify::CheckContext& context, std::size_t count);

  // Starts them, once; later calls do nothing. Called when the first check's kernel worker
  // has exited: CUDA contexts are made one at a time, and one made then delays neither that
  // worker's nor the reference's (whose worker is set up by then: verify/check.cpp).
  void start();
  // Waits until each started worker has set CUDA up, at most `at_most` in all.
  void wait_until_set_up(std::chrono::duration<double> at_most);
  // The a-th waiting worker, or nullptr where fewer were started. Each is used once.
  run::PrestartedWorker* waiting(std::size_t a);

 private:
  verify::CheckContext& context_;
  std::size_t count_ = 0;
  std::vector<TempDir> folders_;
  std::vector<std::unique_ptr<run::PrestartedWorker>> workers_;  // declared last: cancelled before folders_ go
};

// How many audit workers a bench of `kernels` kernels starts during its checks: one per kernel
// the audit can reach at once, none where it audits nothing.
std::size_t audit_workers_to_prestart(std::size_t kernels, bool audits);

// Sets every kernel's `recheck` to its audit; one verifying worker per kernel, up to
// audit_workers_at_once of them at a time, the waiting ones of `prestarted` first. checks[i]
// is the correctness check of job.variants[i]; the reference variant has none and is not
// audited (it is trusted: docs/integrity.md).
void audit_timed_calls(std::vector<VariantSamples>& samples, const BenchJob& job,
                       const std::vector<verify::CheckReport>& checks, verify::CheckContext& context,
                       std::mt19937_64& random, AuditWorkers& prestarted);

}  // namespace kopt::measure
