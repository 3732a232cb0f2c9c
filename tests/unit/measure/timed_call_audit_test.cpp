#include "kopt/measure/timed_call_audit.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <map>
#include <mutex>
#include <random>
#include <thread>

#include "kopt/core/files.hpp"
#include "kopt/verify/check_job.hpp"

namespace kopt::measure {
namespace {

using ::testing::HasSubstr;

VariantSamples timed(std::vector<std::uint64_t> seeds, std::vector<std::uint64_t> digests) {
  return {.label = "kernel.cu", .case_name = "default", .sample_seeds = std::move(seeds),
          .sample_digests = std::move(digests), .final_seed = 900, .final_digest = 9000, .digests = true};
}

verify::RunRecord verified(std::uint64_t seed, std::uint64_t digest, bool reproducible = true) {
  verify::RunRecord run{.case_name = "default", .seed = seed};
  run.output_digest = digest;
  run.bitwise_reproducible = reproducible;
  return run;
}

verify::CheckReport check_with(std::vector<verify::RunRecord> runs) {
  verify::CheckReport check;
  check.runs = std::move(runs);
  return check;
}

BenchJob job_of_floats(std::int64_t elements) {
  spec::BoundCase c{.name = "default"};
  c.args.push_back({.buffer = spec::BoundBuffer{.name = "x", .dtype = spec::dtype_named("float32"), .elements = elements}});
  c.args.push_back({.scalar = spec::BoundScalar{}});
  return {.cases = {c}};
}

TEST(TimedCallAudit, AuditWorkersShareAQuarterOfTheDevicesMemory) {
  const std::int64_t gib = std::int64_t{1} << 30;
  // 1 GiB per worker (2^28 floats) on an 80 GiB card: memory allows 20, the cap is 4.
  EXPECT_EQ(audit_workers_at_once(job_of_floats(std::int64_t{1} << 28), 80 * gib), kMaxAuditWorkersAtOnce);
  // 2 GiB per worker on 16 GiB: a quarter is 4 GiB, two workers.
  EXPECT_EQ(audit_workers_at_once(job_of_floats(std::int64_t{1} << 29), 16 * gib), 2u);
  // Larger than a quarter of the card: one at a time, never none.
  EXPECT_EQ(audit_workers_at_once(job_of_floats(std::int64_t{1} << 30), 8 * gib), 1u);
  // Memory unknown: one at a time.
  EXPECT_EQ(audit_workers_at_once(job_of_floats(1024), 0), 1u);
}

TEST(TimedCallAudit, AuditsTheFinalCallAndTimedCallsAtRandom) {
  std::mt19937_64 random(7);
  const auto calls = choose_audited_calls(timed({1, 2, 3, 4, 5}, {10, 20, 30, 40, 50}), 3, random);
  ASSERT_EQ(calls.size(), 1u + 3u);
  EXPECT_EQ(calls[0].position, -1);
  EXPECT_EQ(calls[0].seed, 900u);
  std::vector<int> positions;
  for (std::size_t i = 1; i < calls.size(); ++i) {
    EXPECT_EQ(calls[i].digest, calls[i].seed * 10);  // the digest of that very call
    positions.push_back(calls[i].position);
  }
  std::ranges::sort(positions);
  EXPECT_EQ(std::ranges::unique(positions).begin(), positions.end());  // no call audited twice
}

TEST(TimedCallAudit, FewerTimedCallsThanWantedAreAllAudited) {
  std::mt19937_64 random(7);
  EXPECT_EQ(choose_audited_calls(timed({1, 2}, {10, 20}), 32, random).size(), 1u + 2u);
}

// The count follows the median call: as many as kernel_seconds allow, within the bounds.
TEST(TimedCallAudit, ShortKernelsGetTheMostAuditedCallsLongOnesTheFewest) {
  const AuditRule rule{.min_timed_calls = 8, .max_timed_calls = 32, .kernel_seconds = 0.1};
  VariantSamples samples = timed({}, {});
  samples.gpu_seconds = {6e-6, 5e-6, 7e-6};
  EXPECT_EQ(audited_timed_calls(samples, rule), 32u);
  samples.gpu_seconds = {5e-3, 4e-3, 6e-3};  // 0.1 s ÷ 5 ms
  EXPECT_EQ(audited_timed_calls(samples, rule), 20u);
  samples.gpu_seconds = {54e-3};
  EXPECT_EQ(audited_timed_calls(samples, rule), 8u);
  samples.gpu_seconds.clear();  // nothing kept: the fewest
  EXPECT_EQ(audited_timed_calls(samples, rule), 8u);
}

// A kernel that skips work on every other timed call escapes an audit of n timed calls (and the
// final one) only when all of them fell on calls it worked on. The data file's rule audits a
// short kernel's batches often enough that a skipped quarter almost never escapes.
TEST(TimedCallAudit, TheDataFilesRuleCatchesAKernelThatSkipsAQuarterOfItsCalls) {
  const AuditRule& rule = audit_rule();
  ASSERT_LE(rule.min_timed_calls, rule.max_timed_calls);
  VariantSamples samples = timed({}, {});
  for (std::uint64_t call = 1; call <= 4000; ++call) {
    samples.sample_seeds.push_back(call);
    samples.sample_digests.push_back(call % 4 == 0 ? 0 : call * 10);  // every fourth call skipped
  }
  samples.gpu_seconds = {6e-6};
  const std::size_t n = audited_timed_calls(samples, rule);
  EXPECT_LT(std::pow(0.75, static_cast<double>(n + 1)), 1e-3);
  std::mt19937_64 random(11);
  int escaped = 0;
  for (int trial = 0; trial < 200; ++trial) {
    const auto calls = choose_audited_calls(samples, n, random);
    escaped += std::ranges::none_of(calls, [](const AuditedCall& c) { return c.position >= 0 && c.digest == 0; });
  }
  EXPECT_EQ(escaped, 0);
}

TEST(TimedCallAudit, TheChecksPassedCallsWithKnownDigestsAreMadeAgain) {
  verify::RunRecord failed = verified(3, 33);
  failed.findings.push_back({verify::FindingKind::mismatch, "C", "wrong"});
  verify::RunRecord other_case = verified(4, 44);
  other_case.case_name = "N=3";
  const auto calls = checked_calls(check_with({verified(1, 11), verified(2, 0), failed, other_case}), "default");
  ASSERT_EQ(calls.size(), 1u);  // seed 2 has no digest (a cached record), 3 failed, 4 is another case
  EXPECT_EQ(calls[0].position, kCheckedCall);
  EXPECT_EQ(calls[0].seed, 1u);
  EXPECT_EQ(calls[0].digest, 11u);
}

TEST(TimedCallAudit, AKernelThatWorksOnlyInTheChecksWorkerFailsTheTimedCalls) {
  const VariantSamples samples = timed({1, 2}, {10, 20});
  const std::vector<AuditedCall> calls{{0, 1, 10}, {kCheckedCall, 5, 55}};
  // Made again honestly: the checked call agrees, the timed call (skipped while timed) does not.
  const auto audit = audit_record(samples, calls, {verified(1, 12), verified(5, 55)});
  ASSERT_FALSE(audit.passed());
  EXPECT_THAT(audit.findings.front().message, HasSubstr("1 of 2 audited calls"));
  EXPECT_THAT(audit.findings.front().message, HasSubstr("timed call 1"));
}

TEST(TimedCallAudit, AKernelThatSkipsWorkInTheAuditAsWhileTimedFailsTheCheckedCalls) {
  const VariantSamples samples = timed({1, 2}, {10, 20});
  const std::vector<AuditedCall> calls{{kCheckedCall, 5, 55}, {0, 1, 10}};
  // Made again as it behaved while timed: the timed call agrees, the checked call does not.
  const auto audit = audit_record(samples, calls, {verified(1, 10), verified(5, 56)});
  ASSERT_FALSE(audit.passed());
  EXPECT_THAT(audit.findings.front().message, HasSubstr("a call the correctness check verified"));
}

// A kernel that crashes (or hangs) only where it is audited is not let off: a call the audit
// could not make again fails it, with its worker's failure where there is one.
TEST(TimedCallAudit, ACallTheAuditCouldNotMakeAgainFails) {
  const VariantSamples samples = timed({1, 2}, {10, 20});
  const std::vector<AuditedCall> calls{{0, 1, 10}, {1, 2, 20}};
  verify::RunRecord crashed{.case_name = "default"};
  crashed.findings.push_back({verify::FindingKind::fault, "", "the audit of timed calls failed: worker killed by signal 6"});
  const auto audit = audit_record(samples, calls, {crashed});
  ASSERT_FALSE(audit.passed());
  ASSERT_EQ(audit.findings.size(), 1u);
  EXPECT_THAT(audit.findings.front().message, HasSubstr("signal 6"));
  const auto partial = audit_record(samples, calls, {verified(1, 10)});
  ASSERT_FALSE(partial.passed());
  EXPECT_THAT(partial.findings.front().message, HasSubstr("did not make timed call 2 again"));
}

TEST(TimedCallAudit, AgreeingCallsPassAndUnreproducibleOnesAreNotedNotFailed) {
  const VariantSamples samples = timed({1}, {10});
  EXPECT_TRUE(audit_record(samples, {{0, 1, 10}, {kCheckedCall, 5, 55}}, {verified(1, 10), verified(5, 55)}).passed());
  const auto noisy = audit_record(samples, {{0, 1, 10}}, {verified(1, 11, false)});
  EXPECT_TRUE(noisy.passed());
  EXPECT_NE(std::ranges::find(noisy.notes, kUnverifiableNote), noisy.notes.end());
}

// Plays the audit's check worker: answers every seed with the digest `digest_of` gives it, and
// keeps each job it was handed.
class FakeAuditWorker final : public ProcessRunner {
 public:
  std::function<std::uint64_t(std::uint64_t)> digest_of = [](std::uint64_t seed) { return seed == 900 ? 9000 : seed * 10; };
  std::vector<nlohmann::json> jobs;
  std::vector<bool> job_was_awaited;
  bool crash = false;  // every job: exits without a result, as a kernel that aborts would leave it  // per job: given to a worker started before it (--await-device)
  std::mutex jobs_mutex;  // the audit's workers run side by side

  ProcessResult run(const ProcessSpec& spec) override {
    // A prestarted worker's job comes later; either way it is the last argument but one.
    const bool awaits = std::ranges::find(spec.argv, "--await-device") != spec.argv.end();
    if (awaits) spec.on_error_line("progress: " + std::string(run::kCudaSetUpProgress));
    const std::filesystem::path job_path = spec.argv[spec.argv.size() - 2];
    while (!std::filesystem::exists(job_path)) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    const nlohmann::json job = nlohmann::json::parse(read_file(job_path));
    if (job.at("kind") == "cancel") return ProcessResult{.started = true, .exit_status = 0};
    if (crash) return ProcessResult{.started = true, .exit_status = 134};  // no result written
    {
      std::lock_guard lock(jobs_mutex);
      jobs.push_back(job);
      job_was_awaited.push_back(awaits);
    }
    nlohmann::json runs = nlohmann::json::array();
    for (const auto& seeds : job.at("seeds_per_case")) {
      for (std::uint64_t seed : seeds.get<std::vector<std::uint64_t>>()) {
        runs.push_back(verify::run_record_to_json(verified(seed, digest_of(seed))));
      }
    }
    write_file_atomic(spec.argv.back(), nlohmann::json{{"kind", "check"}, {"device", nlohmann::json::object()}, {"runs", runs},
                                                   {"fatal", nullptr}, {"nonce", job.at("nonce")}}.dump());
    return ProcessResult{.started = true, .exit_status = 0};
  }
};

class AuditOfTimedCalls : public ::testing::Test {
 protected:
  void audit(const std::vector<verify::CheckReport>& checks, std::size_t prestarted = 0) {
    verify::CheckContext context{runner, dir.path(), {.executable = "/usr/bin/kopt"}};
    AuditWorkers waiting(context, prestarted);
    waiting.start();
    waiting.start();  // once: a second start adds no worker
    waiting.wait_until_set_up(std::chrono::seconds(5));
    std::mt19937_64 random(3);
    audit_timed_calls(samples, job, checks, context, random, waiting);
  }

  TempDir dir{"audit-test"};
  FakeAuditWorker runner;
  BenchJob job{.variants = {{"kernel.cu", "/cache/kernel.so"}, {"reference", "/cache/reference.so", true}},
               .cases = {spec::BoundCase{.name = "default"}}};
  std::vector<VariantSamples> samples{timed({1, 2, 3}, {10, 20, 30}), [] {
                                        VariantSamples reference = timed({4, 5}, {40, 50});
                                        reference.label = "reference";
                                        return reference;
                                      }()};
};

// The reference is trusted (the adversary writes only kernel.cu): no worker is started for
// it. The kernel's calls are made once each, as the timing loop makes them.
TEST_F(AuditOfTimedCalls, OnlyTheKernelIsAuditedInOneWorkerOfSingleCalls) {
  audit({check_with({verified(7, 70)})});
  ASSERT_EQ(runner.jobs.size(), 1u);
  EXPECT_EQ(runner.jobs[0].at("library"), "/cache/kernel.so");
  EXPECT_EQ(runner.jobs[0].at("kind"), "check");  // the worker is a check's in every visible way
  EXPECT_TRUE(runner.jobs[0].at("single_calls").get<bool>());
  const auto seeds = runner.jobs[0].at("seeds_per_case")[0].get<std::vector<std::uint64_t>>();
  EXPECT_EQ(seeds.size(), 1 + 3 + 1);  // the final call, every timed one (3, fewer than the rule's least), the check's
  EXPECT_NE(std::ranges::find(seeds, 7u), seeds.end());
  ASSERT_TRUE(samples[0].recheck.has_value());
  EXPECT_TRUE(samples[0].recheck->passed());
  EXPECT_FALSE(samples[1].recheck.has_value());
}

// Each kernel in a worker of its own, the workers side by side; each kernel's audit is its own.
TEST_F(AuditOfTimedCalls, EachKernelHasAWorkerOfItsOwnAndItsOwnVerdict) {
  job.variants = {{"a.cu", "/cache/a.so"}, {"b.cu", "/cache/b.so"}, {"c.cu", "/cache/c.so"}};
  samples = {timed({1, 2, 3}, {10, 20, 30}), timed({4, 5, 6}, {40, 50, 60}), timed({7, 8, 9}, {70, 80, 90})};
  samples[0].label = "a.cu";
  samples[1].label = "b.cu";
  samples[1].final_digest = 9001;  // b's call after its last sample wrote what b does not write
  samples[2].label = "c.cu";
  verify::CheckReport check = check_with({});
  check.device = {{"global_memory_bytes", std::int64_t{80} << 30}};
  audit({check, check, check});
  ASSERT_EQ(runner.jobs.size(), 3u);
  std::vector<std::string> libraries;
  for (const nlohmann::json& j : runner.jobs) libraries.push_back(j.at("library"));
  std::ranges::sort(libraries);
  EXPECT_EQ(libraries, (std::vector<std::string>{"/cache/a.so", "/cache/b.so", "/cache/c.so"}));
  for (const VariantSamples& s : samples) ASSERT_TRUE(s.recheck.has_value()) << s.label;
  EXPECT_TRUE(samples[0].recheck->passed());
  EXPECT_FALSE(samples[1].recheck->passed());
  EXPECT_TRUE(samples[2].recheck->passed());
}

// The workers started with the bench take the audits first; an audit beyond them starts its
// own. Either way each kernel has a worker of its own, and no waiting worker gets two jobs.
TEST_F(AuditOfTimedCalls, WorkersStartedWithTheBenchTakeTheAuditsFirst) {
  job.variants = {{"a.cu", "/cache/a.so"}, {"b.cu", "/cache/b.so"}};
  samples = {timed({1, 2, 3}, {10, 20, 30}), timed({4, 5, 6}, {40, 50, 60})};
  samples[0].label = "a.cu";
  samples[1].label = "b.cu";
  verify::CheckReport check = check_with({});
  check.device = {{"global_memory_bytes", std::int64_t{80} << 30}};
  audit({check, check}, 1);
  ASSERT_EQ(runner.jobs.size(), 2u);
  EXPECT_EQ(std::ranges::count(runner.job_was_awaited, true), 1);
  for (const VariantSamples& s : samples) {
    ASSERT_TRUE(s.recheck.has_value()) << s.label;
    EXPECT_TRUE(s.recheck->passed()) << s.label;
  }
  EXPECT_EQ(audit_workers_to_prestart(2, true), 2u);
  EXPECT_EQ(audit_workers_to_prestart(9, true), kMaxAuditWorkersAtOnce);
  EXPECT_EQ(audit_workers_to_prestart(2, false), 0u);
}

TEST_F(AuditOfTimedCalls, AWorkerThatDiesFailsTheAudit) {
  runner.crash = true;
  audit({check_with({verified(7, 70)})}, 1);
  ASSERT_TRUE(samples[0].recheck.has_value());
  ASSERT_FALSE(samples[0].recheck->passed());
  EXPECT_THAT(samples[0].recheck->findings.front().message, HasSubstr("the audit of timed calls failed"));
}

// The check digested the library's calls on this case; timed calls of the same library that
// have no digest escaped the audit somehow, and are failed, not let off unaudited.
TEST_F(AuditOfTimedCalls, TimedCallsWithoutDigestsWhereTheChecksHadThemFail) {
  samples[0].digests = false;
  audit({check_with({verified(7, 70)})});
  EXPECT_TRUE(runner.jobs.empty());
  ASSERT_TRUE(samples[0].recheck.has_value());
  ASSERT_FALSE(samples[0].recheck->passed());
  EXPECT_THAT(samples[0].recheck->findings.front().message, HasSubstr("could not be digested"));
}

// A library that cannot digest at all (its check has no digests either) has nothing to match.
TEST_F(AuditOfTimedCalls, ALibraryWithoutDigestsAnywhereIsNotAudited) {
  samples[0].digests = false;
  verify::RunRecord undigested = verified(7, 0);
  audit({check_with({undigested})});
  EXPECT_TRUE(runner.jobs.empty());
  EXPECT_FALSE(samples[0].recheck.has_value());
}

TEST_F(AuditOfTimedCalls, ACheckedCallThatDiffersFails) {
  runner.digest_of = [](std::uint64_t seed) { return seed == 7 ? 71 : seed == 900 ? 9000 : seed * 10; };
  audit({check_with({verified(7, 70)})});
  ASSERT_TRUE(samples[0].recheck.has_value());
  ASSERT_FALSE(samples[0].recheck->passed());
  EXPECT_THAT(samples[0].recheck->findings.front().message, HasSubstr("a call the correctness check verified"));
}

// One call per seed cannot show that outputs vary between runs; the check, which calls twice,
// did: its verdict marks the audit's digests as unverifiable, not failed.
TEST_F(AuditOfTimedCalls, WhatTheCheckFoundNotReproducibleIsNotedNotFailed) {
  runner.digest_of = [](std::uint64_t seed) { return seed * 10 + 1; };
  audit({check_with({verified(7, 70, false)})});
  ASSERT_TRUE(samples[0].recheck.has_value());
  EXPECT_TRUE(samples[0].recheck->passed());
  EXPECT_NE(std::ranges::find(samples[0].recheck->notes, kUnverifiableNote), samples[0].recheck->notes.end());
}

}  // namespace
}  // namespace kopt::measure
