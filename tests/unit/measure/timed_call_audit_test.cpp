#include "kopt/measure/timed_call_audit.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

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

TEST(TimedCallAudit, AuditsTheFinalCallAndTwoTimedCallsAtRandom) {
  std::mt19937_64 random(7);
  const auto calls = choose_audited_calls(timed({1, 2, 3, 4, 5}, {10, 20, 30, 40, 50}), random);
  ASSERT_EQ(calls.size(), 1 + kAuditedTimedCalls);
  EXPECT_EQ(calls[0].position, -1);
  EXPECT_EQ(calls[0].seed, 900u);
  for (std::size_t i = 1; i < calls.size(); ++i) {
    EXPECT_EQ(calls[i].digest, calls[i].seed * 10);  // the digest of that very call
  }
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

TEST(TimedCallAudit, AgreeingCallsPassAndUnreproducibleOnesAreNotedNotFailed) {
  const VariantSamples samples = timed({1}, {10});
  EXPECT_TRUE(audit_record(samples, {{0, 1, 10}, {kCheckedCall, 5, 55}}, {verified(1, 10), verified(5, 55)}).passed());
  const auto noisy = audit_record(samples, {{0, 1, 10}}, {verified(1, 11, false)});
  EXPECT_TRUE(noisy.passed());
  EXPECT_NE(std::ranges::find(noisy.notes, kUnverifiableNote), noisy.notes.end());
}

}  // namespace
}  // namespace kopt::measure
