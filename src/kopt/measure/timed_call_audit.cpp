#include "kopt/measure/timed_call_audit.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <optional>

#include "kopt/core/error.hpp"
#include "kopt/core/files.hpp"
#include "kopt/core/parallel_for.hpp"
#include "kopt/measure/statistics.hpp"
#include "kopt/measure/tolerance_audit.hpp"
#include "kopt/measure/witness_file.hpp"
#include "kopt/run/device_probe.hpp"
#include "kopt/run/worker_launcher.hpp"

namespace kopt::measure {
namespace fs = std::filesystem;

namespace {
AuditRule load_audit_rule() {
  const toml::table audit = witness_section("audit");
  AuditRule rule{.min_timed_calls = positive_witness_count(audit, "audit", "min_timed_calls"),
                 .max_timed_calls = positive_witness_count(audit, "audit", "max_timed_calls"),
                 .kernel_seconds = positive_witness_number(audit, "audit", "kernel_seconds")};
  if (rule.max_timed_calls < rule.min_timed_calls) {
    throw environment_error("{}: [audit] max_timed_calls is below min_timed_calls", kWitnessFile);
  }
  return rule;
}
}  // namespace

const AuditRule& audit_rule() {
  static const AuditRule rule = load_audit_rule();
  return rule;
}

std::size_t audited_timed_calls(const VariantSamples& samples, const AuditRule& rule) {
  const double call_seconds = samples.gpu_seconds.empty() ? 0 : median(samples.gpu_seconds);
  if (!(call_seconds > 0)) return rule.min_timed_calls;
  const double affordable = std::floor(rule.kernel_seconds / call_seconds);
  return static_cast<std::size_t>(
      std::clamp(affordable, static_cast<double>(rule.min_timed_calls), static_cast<double>(rule.max_timed_calls)));
}

std::vector<AuditedCall> choose_audited_calls(const VariantSamples& samples, std::size_t timed_calls,
                                              std::mt19937_64& random) {
  std::vector<AuditedCall> audited{{.position = -1, .seed = samples.final_seed, .digest = samples.final_digest}};
  std::vector<std::size_t> positions(samples.sample_seeds.size());
  for (std::size_t i = 0; i < positions.size(); ++i) positions[i] = i;
  std::shuffle(positions.begin(), positions.end(), random);
  positions.resize(std::min(positions.size(), timed_calls));
  for (std::size_t p : positions) {
    audited.push_back({.position = static_cast<int>(p), .seed = samples.sample_seeds[p], .digest = samples.sample_digests[p]});
  }
  return audited;
}

std::vector<AuditedCall> checked_calls(const verify::CheckReport& check, const std::string& case_name) {
  std::vector<AuditedCall> calls;
  for (const verify::RunRecord& run : check.runs) {
    // A digest of 0 is a record from before digests were kept (a cached check): unknown.
    if (run.case_name == case_name && run.passed() && run.output_digest != 0)
      calls.push_back({.position = kCheckedCall, .seed = run.seed, .digest = run.output_digest});
  }
  return calls;
}

namespace {
std::string describe_call(const AuditedCall& call) {
  if (call.position == kCheckedCall) return "a call the correctness check verified";
  if (call.position < 0) return "the call after the last sample";
  return fmt::format("timed call {}", call.position + 1);
}

// The failure behind a call the verifying worker returned no run for: the worker's own (a
// fault, a crash, a time-out: a run record with a finding but no audited seed), else this.
verify::Finding missing_call_finding(const AuditedCall& call, const std::vector<verify::RunRecord>& verifying_runs) {
  for (const verify::RunRecord& run : verifying_runs) {
    if (!run.passed()) return run.findings.front();
  }
  return {verify::FindingKind::fault, "",
          fmt::format("the audit of timed calls did not make {} again: its worker returned no run for it", describe_call(call))};
}
}  // namespace

verify::RunRecord audit_record(const VariantSamples& samples, const std::vector<AuditedCall>& audited,
                               const std::vector<verify::RunRecord>& verifying_runs) {
  verify::RunRecord audit{.case_name = samples.case_name};
  int differing = 0;
  std::string first_difference;
  for (const AuditedCall& call : audited) {
    auto run = std::ranges::find_if(verifying_runs, [&](const verify::RunRecord& r) {
      return r.case_name == samples.case_name && r.seed == call.seed;
    });
    // A call the audit could not make again is not verified: a kernel that crashes or hangs
    // only where it is audited fails here, as its worker's failure or as the missing call.
    if (run == verifying_runs.end()) {
      if (audit.findings.empty()) audit.findings.push_back(missing_call_finding(call, verifying_runs));
      continue;
    }
    if (!run->passed()) {
      audit.findings.push_back(run->findings.front());
      continue;
    }
    if (!run->bitwise_reproducible) {
      audit.notes.push_back(std::string(kUnverifiableNote));
      continue;
    }
    if (run->output_digest == call.digest) continue;
    if (differing++ == 0) first_difference = describe_call(call);
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

// Runs the variant's library as a check on each case's audited seeds, in `worker` (a fresh
// one: waiting since the bench began, or started now).
std::vector<verify::RunRecord> verifying_runs(const BenchVariant& variant, const BenchJob& job,
                                              const std::vector<std::vector<AuditedCall>>& per_case,
                                              const std::function<run::WorkerOutcome(const nlohmann::json&)>& worker) {
  verify::CheckJob check{.library = variant.library, .signature = job.signature, .single_calls = true,
                         .device = job.device};
  for (std::size_t c = 0; c < job.cases.size(); ++c) {
    check.cases.push_back(job.cases[c]);
    std::vector<std::uint64_t> seeds;
    for (const AuditedCall& call : per_case[c]) seeds.push_back(call.seed);
    check.seeds_per_case.push_back(seeds);
  }
  run::WorkerOutcome outcome = worker(verify::check_job_to_json(check));
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

void with_reproducibility_of(const verify::CheckReport& check, std::vector<verify::RunRecord>& verifying_runs) {
  for (verify::RunRecord& run : verifying_runs) {
    for (const verify::RunRecord& checked : check.runs) {
      if (checked.case_name == run.case_name && !checked.bitwise_reproducible) run.bitwise_reproducible = false;
    }
  }
}

namespace {

// One kernel's audit before its worker runs: the calls chosen per case, and whose samples they are.
struct KernelAudit {
  std::size_t index = 0;                      // in job.variants and checks
  std::vector<std::vector<AuditedCall>> per_case;
  std::vector<VariantSamples*> samples;       // per case; nullptr where it was not timed
};

// The finding for timed calls of a case that have no digest, where the same library's check
// took digests of its calls on that case: nothing an honest kernel does makes the digest of a
// timed call fail, so calls that escaped it are not let off unaudited.
std::optional<verify::Finding> undigested_finding(const VariantSamples& samples, const verify::CheckReport& check) {
  if (samples.digests || samples.sample_seeds.empty() || checked_calls(check, samples.case_name).empty()) {
    return std::nullopt;
  }
  return verify::Finding{verify::FindingKind::fault, "",
                         "its timed calls could not be digested on the GPU, though its check's calls on the same "
                         "case were: they cannot be audited"};
}

std::optional<KernelAudit> plan_kernel_audit(std::size_t index, std::vector<VariantSamples>& samples,
                                             const BenchJob& job, const verify::CheckReport& check,
                                             std::mt19937_64& random) {
  KernelAudit audit{.index = index,
                    .per_case = std::vector<std::vector<AuditedCall>>(job.cases.size()),
                    .samples = std::vector<VariantSamples*>(job.cases.size(), nullptr)};
  for (VariantSamples& s : samples) {
    if (s.label != job.variants[index].label) continue;
    if (auto undigested = undigested_finding(s, check)) {
      s.recheck = verify::RunRecord{.case_name = s.case_name, .findings = {*undigested}};
      continue;
    }
    if (!s.digests) continue;
    for (std::size_t c = 0; c < job.cases.size(); ++c) {
      if (job.cases[c].name != s.case_name) continue;
      audit.per_case[c] = choose_audited_calls(s, audited_timed_calls(s, audit_rule()), random);
      for (const AuditedCall& call : checked_calls(check, s.case_name)) audit.per_case[c].push_back(call);
      std::shuffle(audit.per_case[c].begin(), audit.per_case[c].end(), random);
      audit.samples[c] = &s;
    }
  }
  if (std::ranges::all_of(audit.samples, [](const VariantSamples* s) { return s == nullptr; })) return std::nullopt;
  return audit;
}

}  // namespace

std::size_t audit_workers_at_once(const BenchJob& job, std::int64_t device_memory_bytes) {
  std::int64_t bytes_per_worker = 0;
  for (const spec::BoundCase& bound_case : job.cases) {
    for (const spec::BoundArg& arg : bound_case.args) {
      if (arg.buffer) bytes_per_worker += arg.buffer->bytes();
    }
  }
  if (bytes_per_worker <= 0 || device_memory_bytes <= 0) return 1;
  const auto fit = static_cast<std::size_t>(device_memory_bytes / 4 / bytes_per_worker);
  return std::clamp<std::size_t>(fit, 1, kMaxAuditWorkersAtOnce);
}

AuditWorkers::AuditWorkers(verify::CheckContext& context, std::size_t count) : context_(context), count_(count) {}

void AuditWorkers::start() {
  if (!workers_.empty()) return;
  folders_.reserve(count_);
  for (std::size_t i = 0; i < count_; ++i) {
    // Named and laid out as a check's folder: the worker's paths say nothing of an audit.
    folders_.emplace_back("check", context_.cache_dir / "tmp");
    workers_.push_back(
        std::make_unique<run::PrestartedWorker>(context_.runner, context_.worker, folders_.back().path() / "check"));
  }
}

void AuditWorkers::wait_until_set_up(std::chrono::duration<double> at_most) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration_cast<std::chrono::steady_clock::duration>(at_most);
  for (const auto& worker : workers_) {
    const auto left = deadline - std::chrono::steady_clock::now();
    if (left <= std::chrono::steady_clock::duration::zero() || !worker->wait_until_set_up(left)) return;
  }
}

run::PrestartedWorker* AuditWorkers::waiting(std::size_t a) { return a < workers_.size() ? workers_[a].get() : nullptr; }

std::size_t audit_workers_to_prestart(std::size_t kernels, bool audits) {
  return audits ? std::min(kernels, kMaxAuditWorkersAtOnce) : 0;
}

void audit_timed_calls(std::vector<VariantSamples>& samples, const BenchJob& job,
                       const std::vector<verify::CheckReport>& checks, verify::CheckContext& context,
                       std::mt19937_64& random, AuditWorkers& prestarted) {
  // Chosen one kernel after another from `random`, so that the choice does not depend on
  // which worker finishes first.
  std::vector<KernelAudit> audits;
  for (std::size_t index = 0; index < job.variants.size(); ++index) {
    // The reference has no check: it is trusted (the adversary writes only kernel.cu), and
    // auditing it cost a worker and six calls of the largest case (docs/measurement.md).
    if (index >= checks.size()) continue;
    // Outputs the check saw vary have no digest to match: tolerance_audit.hpp verifies them.
    // A kernel that keeps outputs only because its source could make them vary (atomics) is
    // audited here too, and within tolerance where its digests differ.
    if (job.variants[index].retain_outputs && varies_between_runs(checks[index])) continue;
    if (auto audit = plan_kernel_audit(index, samples, job, checks[index], random)) audits.push_back(std::move(*audit));
  }
  const nlohmann::json& device = checks.empty() ? nlohmann::json() : checks.front().device;
  const std::int64_t device_memory = device.is_object() ? device.value("global_memory_bytes", std::int64_t{0}) : 0;
  std::vector<std::vector<verify::RunRecord>> runs(audits.size());
  // Each kernel in a worker of its own (no kernel shares a process with another's digests);
  // untimed, so the workers may share the GPU: their start-up costs overlap.
  parallel_for(
      audits.size(),
      [&](std::size_t a) {
        const BenchVariant& variant = job.variants[audits[a].index];
        if (run::PrestartedWorker* worker = prestarted.waiting(a)) {
          runs[a] = verifying_runs(variant, job, audits[a].per_case, [&](const nlohmann::json& check) {
            return worker->run(check, context.worker.confine_writes);
          });
        } else {
          // Named and laid out as a check's folder: the worker's paths say nothing of an audit.
          TempDir work("check", context.cache_dir / "tmp");
          runs[a] = verifying_runs(variant, job, audits[a].per_case, [&](const nlohmann::json& check) {
            return run::run_worker(context.runner, context.worker, check, work.path() / "check");
          });
        }
        with_reproducibility_of(checks[audits[a].index], runs[a]);
      },
      static_cast<unsigned>(audit_workers_at_once(job, device_memory)));
  for (std::size_t a = 0; a < audits.size(); ++a) {
    for (std::size_t c = 0; c < job.cases.size(); ++c) {
      VariantSamples* samples_of_case = audits[a].samples[c];
      if (samples_of_case != nullptr) samples_of_case->recheck = audit_record(*samples_of_case, audits[a].per_case[c], runs[a]);
    }
  }
}

}  // namespace kopt::measure
