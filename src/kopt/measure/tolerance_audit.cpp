#include "kopt/measure/tolerance_audit.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "kopt/build/compiler.hpp"
#include "kopt/core/error.hpp"
#include "kopt/core/files.hpp"
#include "kopt/measure/output_retention.hpp"
#include "kopt/measure/timed_call_audit.hpp"
#include "kopt/measure/witness_file.hpp"
#include "kopt/run/host_data.hpp"
#include "kopt/verify/input_dependence.hpp"
#include "kopt/verify/npy.hpp"
#include "kopt/verify/reference.hpp"

namespace kopt::measure {
namespace fs = std::filesystem;

bool varies_between_runs(const verify::CheckReport& check) {
  return std::ranges::any_of(check.runs, [](const verify::RunRecord& run) { return !run.bitwise_reproducible; });
}

namespace {

// Where the call of `seed` stands among the timed calls: its position, -1 for the call after
// the last sample; nullopt when it is none of them.
std::optional<int> timed_position(const VariantSamples& samples, std::uint64_t seed) {
  if (seed == samples.final_seed) return -1;
  auto at = std::ranges::find(samples.sample_seeds, seed);
  if (at == samples.sample_seeds.end()) return std::nullopt;
  return static_cast<int>(at - samples.sample_seeds.begin());
}

std::string describe_timed_call(const VariantSamples& samples, std::uint64_t seed) {
  const int position = timed_position(samples, seed).value_or(-2);
  if (position == -1) return "the call after the last sample";
  if (position < 0) return "a call that was not timed";
  return fmt::format("timed call {}", position + 1);
}

std::uint64_t recorded_digest(const VariantSamples& samples, std::uint64_t seed) {
  const int position = timed_position(samples, seed).value_or(-1);
  if (position < 0) return samples.final_digest;
  return samples.sample_digests.at(static_cast<std::size_t>(position));
}

// The digest of the kept outputs, folded as the worker folds each call's outputs.
std::uint64_t kept_digest(const spec::BoundCase& bound_case, const fs::path& dir) {
  std::vector<std::uint64_t> per_output;
  for (const spec::BoundArg& arg : bound_case.args) {
    if (!arg.buffer || !arg.buffer->is_output) continue;
    per_output.push_back(run::output_digest(verify::read_npy(dir / (arg.buffer->name + ".npy")).data));
  }
  return verify::combine_output_digests(per_output);
}

}  // namespace

RetainedOutputs retained_outputs(const VariantSamples& samples, std::size_t variant, std::size_t case_index,
                                 const fs::path& retention_dir) {
  RetainedOutputs kept{.note = samples.kept_note};
  for (std::uint64_t seed : samples.kept_seeds) {
    kept.calls.push_back({seed, retention_dir / kept_call_dir(variant, case_index, seed)});
  }
  return kept;
}

std::size_t tolerance_verified_calls(bool python_reference) {
  static const auto counts = [] {
    const toml::table audit = witness_section("audit");
    return std::pair{positive_witness_count(audit, "audit", "tolerance_calls_cuda_reference"),
                     positive_witness_count(audit, "audit", "tolerance_calls_python_reference")};
  }();
  return python_reference ? counts.second : counts.first;
}

std::vector<RetainedCall> choose_verified_calls(const VariantSamples& samples, const RetainedOutputs& kept,
                                                std::size_t count, std::mt19937_64& random) {
  std::vector<RetainedCall> timed;
  for (const RetainedCall& call : kept.calls) {
    if (timed_position(samples, call.seed)) timed.push_back(call);
  }
  std::shuffle(timed.begin(), timed.end(), random);
  timed.resize(std::min(timed.size(), count));
  return timed;
}

verify::RunRecord verify_kept_call(const spec::BoundCase& bound_case, const VariantSamples& samples,
                                   const RetainedCall& call, const fs::path& reference_dir) {
  verify::RunRecord run{.case_name = samples.case_name, .seed = call.seed};
  const std::string which = describe_timed_call(samples, call.seed);
  try {
    if (samples.digests && kept_digest(bound_case, call.dir) != recorded_digest(samples, call.seed)) {
      run.findings.push_back({verify::FindingKind::mismatch, "",
                              fmt::format("{}: the outputs kept of it are not what it wrote (their digest is not the "
                                          "one taken right after the call)",
                                          which)});
      return run;
    }
    verify::compare_dumped_outputs(bound_case, call.dir, reference_dir, {}, run);  // every element read
    // Within a loose tolerance, a constant written while timed passes the comparison above.
    verify::judge_constant_outputs(bound_case, run, verify::input_dependence_rule());
  } catch (const Error& e) {
    run.findings.push_back({verify::FindingKind::mismatch, "", fmt::format("{}: its kept outputs: {}", which, e.what())});
    return run;
  }
  for (verify::Finding& finding : run.findings) {
    finding.message = fmt::format("{}, compared with the reference within tolerance: {}", which, finding.message);
  }
  return run;
}

namespace {

// A recheck without the unverifiable note is the digest audit's verdict: the source could make
// the outputs vary, but the check's runs agreed (timed_call_audit.cpp).
bool has_digest_verdict(const VariantSamples& samples) {
  return samples.recheck && std::ranges::find(samples.recheck->notes, kUnverifiableNote) == samples.recheck->notes.end();
}

}  // namespace

void apply_tolerance_audit(VariantSamples& samples, const ToleranceAudit& audit) {
  // The digest audit's verdict stands where this audit has none.
  const bool digest_audited = has_digest_verdict(samples);
  if (!samples.recheck) samples.recheck = verify::RunRecord{.case_name = samples.case_name};
  std::vector<std::string>& notes = samples.recheck->notes;
  std::erase(notes, std::string(kUnverifiableNote));
  if (audit.failure) {
    samples.recheck->findings.push_back(*audit.failure);
    return;
  }
  if (!audit.unverifiable.empty() && digest_audited) return;
  if (!audit.unverifiable.empty()) {
    notes.emplace_back(kUnverifiableNote);
    notes.push_back(std::string(kToleranceUnverifiedPrefix) + audit.unverifiable);
    return;
  }
  notes.push_back(fmt::format("{}: {} of its {} timed calls, chosen at random, agree with the reference",
                              kVerifiedWithinToleranceNote, audit.verified, samples.sample_seeds.size() + 1));
  // A kernel whose source can make its outputs vary (atomics) but whose check saw them agree
  // was audited by digest as well, and outputs that vary differ there honestly. Verified
  // within tolerance, that difference is the variation, not skipped work.
  const auto differed = std::erase_if(samples.recheck->findings, [](const verify::Finding& f) {
    return f.kind == verify::FindingKind::mismatch;
  });
  if (differed > 0) notes.emplace_back(kVariedThoughCheckAgreedNote);
}

namespace {

// One variant on one case awaiting the reference: the calls chosen, or why there are none.
struct PendingAudit {
  VariantSamples* samples = nullptr;
  std::vector<RetainedCall> calls;
  ToleranceAudit audit;
};

PendingAudit pending_audit(VariantSamples& samples, const RetainedOutputs& kept, const spec::Problem& problem,
                           std::mt19937_64& random) {
  const bool has_reference = problem.spec.reference.has_value();
  PendingAudit pending{.samples = &samples};
  if (!has_reference) pending.audit.unverifiable = "the spec has no reference to compare them with";
  else if (!kept.note.empty()) pending.audit.unverifiable = kept.note;
  else {
    // A digest mismatch this audit may settle (apply_tolerance_audit) is settled on every kept
    // call, whatever the reference costs: naming atomics must not buy a kernel that skips work a
    // lighter audit than its digests gave it.
    const bool settles_mismatch = samples.recheck && !samples.recheck->passed();
    const std::size_t count = settles_mismatch ? kMaxRetainedCalls
                                               : tolerance_verified_calls(verify::is_python_reference(*problem.spec.reference));
    pending.calls = choose_verified_calls(samples, kept, count, random);
  }
  if (pending.audit.unverifiable.empty() && pending.calls.empty()) {
    pending.audit.unverifiable = "none of its timed calls' outputs was kept";
  }
  return pending;
}

// Computes the reference of `case_name` on every chosen seed at once and compares each call.
void compare_case(std::vector<PendingAudit>& pending, const std::string& case_name, const spec::Problem& problem,
                  const std::string& arch, verify::CheckContext& context) {
  std::vector<std::uint64_t> seeds;
  for (const PendingAudit& p : pending) {
    for (const RetainedCall& call : p.calls) {
      if (std::ranges::find(seeds, call.seed) == seeds.end()) seeds.push_back(call.seed);
    }
  }
  if (seeds.empty()) return;
  const spec::BoundCase& bound_case = *problem.find_case(case_name);
  spec::Problem one_case = problem;
  one_case.cases = {bound_case};
  // Secret seeds: their references are this command's own, never cached.
  TempDir references("tolerance-reference", context.cache_dir / "tmp");
  create_folders(references.path() / "tmp");
  verify::ReferenceContext reference_context{context.runner, references.path(), context.worker, true};
  reference_context.python_server = context.python_server;
  std::optional<build::Compiler> compiler;
  if (!verify::is_python_reference(*problem.spec.reference)) {
    compiler.emplace(context.runner, build::find_nvcc(), context.cache_dir);
  }
  verify::ReferenceOutputs reference;
  try {
    reference = verify::reference_outputs(one_case, seeds, reference_context, compiler ? &*compiler : nullptr, arch);
  } catch (const Error& e) {
    for (PendingAudit& p : pending) {
      if (!p.calls.empty()) p.audit.unverifiable = fmt::format("its reference failed: {}", e.what());
    }
    return;
  }
  for (PendingAudit& p : pending) {
    for (const RetainedCall& call : p.calls) {
      const auto s = static_cast<std::size_t>(std::ranges::find(seeds, call.seed) - seeds.begin());
      verify::RunRecord run = verify_kept_call(bound_case, *p.samples, call, reference.dirs.front()[s]);
      if (run.passed()) ++p.audit.verified;
      else if (!p.audit.failure) p.audit.failure = run.findings.front();
    }
  }
}

}  // namespace

void audit_timed_calls_within_tolerance(std::vector<VariantSamples>& samples, const BenchJob& job,
                                        const fs::path& retention_dir, const spec::Problem& problem,
                                        const std::string& arch, verify::CheckContext& context,
                                        std::mt19937_64& random) {
  for (std::size_t c = 0; c < job.cases.size(); ++c) {
    std::vector<PendingAudit> pending;
    for (VariantSamples& s : samples) {
      if (s.case_name != job.cases[c].name) continue;
      auto variant = std::ranges::find_if(job.variants, [&](const BenchVariant& v) { return v.label == s.label; });
      if (variant == job.variants.end() || !variant->retain_outputs) continue;
      // Kept only because its source could make its outputs vary, and its digests matched:
      // the digest audit verified it, and no reference need be computed.
      if (has_digest_verdict(s) && s.recheck->passed()) continue;
      const auto index = static_cast<std::size_t>(variant - job.variants.begin());
      pending.push_back(pending_audit(s, retained_outputs(s, index, c, retention_dir), problem, random));
    }
    compare_case(pending, job.cases[c].name, problem, arch, context);
    for (const PendingAudit& p : pending) apply_tolerance_audit(*p.samples, p.audit);
  }
}

}  // namespace kopt::measure
