#include "kopt/measure/timed_call_audit.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "kopt/core/files.hpp"
#include "kopt/run/device_probe.hpp"
#include "kopt/run/worker_launcher.hpp"

namespace kopt::measure {
namespace fs = std::filesystem;

std::vector<AuditedCall> choose_audited_calls(const VariantSamples& samples, std::mt19937_64& random) {
  std::vector<AuditedCall> audited{{.position = -1, .seed = samples.final_seed, .digest = samples.final_digest}};
  std::vector<std::size_t> positions(samples.sample_seeds.size());
  for (std::size_t i = 0; i < positions.size(); ++i) positions[i] = i;
  std::shuffle(positions.begin(), positions.end(), random);
  positions.resize(std::min(positions.size(), kAuditedTimedCalls));
  for (std::size_t p : positions) {
    audited.push_back({.position = static_cast<int>(p), .seed = samples.sample_seeds[p], .digest = samples.sample_digests[p]});
  }
  return audited;
}

verify::RunRecord audit_record(const VariantSamples& samples, const std::vector<AuditedCall>& audited,
                               const std::vector<verify::RunRecord>& verifying_runs) {
  verify::RunRecord audit{.case_name = samples.case_name};
  int differing = 0;
  std::string first_difference;
  for (const AuditedCall& call : audited) {
    auto run = std::ranges::find_if(verifying_runs, [&](const verify::RunRecord& r) {
      return r.case_name == samples.case_name && r.seed == call.seed;
    });
    if (run == verifying_runs.end()) continue;
    if (!run->passed()) {
      audit.findings.push_back(run->findings.front());
      continue;
    }
    if (!run->bitwise_reproducible) {
      audit.notes.push_back(std::string(kUnverifiableNote));
      continue;
    }
    if (run->output_digest == call.digest) continue;
    if (differing++ == 0) {
      first_difference = call.position < 0 ? "the call after the last sample" : fmt::format("timed call {}", call.position + 1);
    }
  }
  if (differing > 0) {
    audit.findings.push_back(
        {verify::FindingKind::mismatch, "",
         fmt::format("{} of {} audited calls wrote other outputs than the same kernel writes on the same inputs "
                     "when verified (first: {})",
                     differing, audited.size(), first_difference)});
  }
  return audit;
}

namespace {

// Runs the variant's library as a check on each case's audited seeds, in a fresh worker.
std::vector<verify::RunRecord> verifying_runs(const BenchVariant& variant, const BenchJob& job,
                                              const std::vector<std::vector<AuditedCall>>& per_case,
                                              verify::CheckContext& context, const fs::path& work) {
  verify::CheckJob check{.library = variant.library, .signature = job.signature, .device = job.device};
  for (std::size_t c = 0; c < job.cases.size(); ++c) {
    check.cases.push_back(job.cases[c]);
    std::vector<std::uint64_t> seeds;
    for (const AuditedCall& call : per_case[c]) seeds.push_back(call.seed);
    check.seeds_per_case.push_back(seeds);
  }
  run::WorkerOutcome outcome = run::run_worker(context.runner, context.worker, verify::check_job_to_json(check), work);
  if (!outcome.result) {
    verify::RunRecord failed{.case_name = job.cases.front().name};
    failed.findings.push_back({verify::FindingKind::fault, "", "the audit of timed calls failed: " + outcome.failure});
    return {failed};
  }
  run::rethrow_worker_error(*outcome.result);
  verify::CheckJobResult result = verify::check_result_from_json(*outcome.result);
  if (result.fatal) {
    verify::RunRecord failed{.case_name = job.cases.front().name};
    failed.findings.push_back(*result.fatal);
    result.runs.push_back(failed);
  }
  return result.runs;
}

}  // namespace

void audit_timed_calls(std::vector<VariantSamples>& samples, const BenchJob& job, verify::CheckContext& context,
                       std::mt19937_64& random) {
  TempDir work("audit", context.cache_dir / "tmp");
  for (const BenchVariant& variant : job.variants) {
    std::vector<std::vector<AuditedCall>> per_case(job.cases.size());
    std::vector<VariantSamples*> mine(job.cases.size(), nullptr);
    for (VariantSamples& s : samples) {
      if (s.label != variant.label || !s.digests) continue;
      for (std::size_t c = 0; c < job.cases.size(); ++c) {
        if (job.cases[c].name == s.case_name) {
          per_case[c] = choose_audited_calls(s, random);
          mine[c] = &s;
        }
      }
    }
    if (std::ranges::all_of(mine, [](const VariantSamples* s) { return s == nullptr; })) continue;
    const std::vector<verify::RunRecord> runs =
        verifying_runs(variant, job, per_case, context, work.path() / fmt::format("v{}", &variant - job.variants.data()));
    for (std::size_t c = 0; c < job.cases.size(); ++c) {
      if (mine[c] != nullptr) mine[c]->recheck = audit_record(*mine[c], per_case[c], runs);
    }
  }
}

}  // namespace kopt::measure
