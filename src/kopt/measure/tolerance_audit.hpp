#pragma once
// The audit of timed calls within tolerance, in kopt's own process after the timing worker
// has exited (docs/integrity.md, "Outputs that are not bitwise reproducible"). For a variant
// whose outputs vary between runs on the same inputs, the digest audit
// (timed_call_audit.hpp) has nothing to match; instead the timing worker kept the outputs of
// some timed calls (output_retention.hpp). Here kopt picks some of them at random (the
// worker is gone: the kernel cannot know which), checks that each is what the call wrote
// (its digest equals the one taken on the GPU right after the call), computes the reference
// on the same secret seeds, and compares within the spec's tolerance, as the check does. A
// difference, or an element never written (still NaN poison), fails the variant's audit:
// FLAG "timed call outputs differ from the verified outputs".

#include <cstdint>
#include <filesystem>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "kopt/measure/bench_job.hpp"
#include "kopt/verify/check.hpp"

namespace kopt::measure {

// How many kept calls per variant and case are compared with the reference (data/witness.toml
// [audit]): a kernel that skips work on a share f of its timed calls escapes with (1 - f)^n.
// A .cu reference computes every seed in one worker on the GPU, so all kept calls (up to
// output_retention.hpp's 16) are compared; a .py reference pays per seed, so fewer.
std::size_t tolerance_verified_calls(bool python_reference);
// A note on a variant whose timed calls were verified within tolerance, and the start of the
// note saying why they could not be (a bench WARN then names the reason).
inline constexpr std::string_view kVerifiedWithinToleranceNote = "timed calls verified within tolerance";
inline constexpr std::string_view kToleranceUnverifiedPrefix = "not verified within tolerance either: ";
// The note on a kernel whose digests differed though its check's runs agreed (atomics whose
// order happened to repeat), when its kept timed calls agree with the reference.
inline constexpr std::string_view kVariedThoughCheckAgreedNote =
    "outputs varied between runs though the check's runs agreed: the timed calls' digests differ from their "
    "replays, and their kept outputs agree with the reference within tolerance";

// Whether a check saw outputs change between two runs on the same inputs: then its timed
// calls are kept and verified within tolerance.
bool varies_between_runs(const verify::CheckReport& check);

// What the timing worker kept of one variant on one case.
struct RetainedCall {
  std::uint64_t seed = 0;
  std::filesystem::path dir;  // holds <output>.npy
};
struct RetainedOutputs {
  std::vector<RetainedCall> calls;
  std::string note;  // why nothing was kept
};

// The calls the worker says (in its result) it kept of job variant `variant` on case
// `case_index`, with their folders beneath `retention_dir`.
RetainedOutputs retained_outputs(const VariantSamples& samples, std::size_t variant, std::size_t case_index,
                                 const std::filesystem::path& retention_dir);

// Up to `count` of the kept calls, at random, among those whose seed is a timed call of
// `samples` (a sample discarded for throttling is not one).
std::vector<RetainedCall> choose_verified_calls(const VariantSamples& samples, const RetainedOutputs& kept,
                                                std::size_t count, std::mt19937_64& random);

// One kept call against the reference outputs in `reference_dir`: its outputs must be what
// the call wrote (digest) and within tolerance. The record's findings name the call.
verify::RunRecord verify_kept_call(const spec::BoundCase& bound_case, const VariantSamples& samples,
                                   const RetainedCall& call, const std::filesystem::path& reference_dir);

// The result of the audit of one variant on one case.
struct ToleranceAudit {
  std::size_t verified = 0;               // kept calls compared and found within tolerance
  std::optional<verify::Finding> failure;  // the first call that was not
  std::string unverifiable;               // why nothing could be compared
};

// Folds `audit` into samples.recheck: a failure is a finding (FLAG), a pass removes the digest
// audit's "not bitwise reproducible" note (no WARN) and settles a digest mismatch (the
// outputs vary: kVariedThoughCheckAgreedNote), and an impossible audit keeps it, with the
// reason (WARN).
void apply_tolerance_audit(VariantSamples& samples, const ToleranceAudit& audit);

// Every variant marked retain_outputs in `job`: chooses kept calls, computes the reference on
// their seeds (problem's .cu or .py reference, for each case at once), compares, and applies.
void audit_timed_calls_within_tolerance(std::vector<VariantSamples>& samples, const BenchJob& job,
                                        const std::filesystem::path& retention_dir, const spec::Problem& problem,
                                        const std::string& arch, verify::CheckContext& context,
                                        std::mt19937_64& random);

}  // namespace kopt::measure
