#include "kopt/measure/tolerance_audit.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <set>

#include "kopt/core/error.hpp"
#include "kopt/core/files.hpp"
#include "kopt/measure/bench.hpp"
#include "kopt/measure/output_retention.hpp"
#include "kopt/measure/timed_call_audit.hpp"
#include "kopt/run/host_data.hpp"
#include "kopt/spec/dtype.hpp"
#include "kopt/verify/npy.hpp"

namespace kopt::measure {
namespace {
namespace fs = std::filesystem;
using ::testing::HasSubstr;

constexpr std::int64_t kElements = 4;

spec::BoundCase reduction_case() {
  spec::BoundCase c{.name = "default"};
  c.args.push_back({.buffer = spec::BoundBuffer{.name = "out", .dtype = spec::dtype_named("float32"),
                                                .elements = kElements, .shape = {kElements}, .is_output = true,
                                                .tolerance = {1e-3, 1e-5}}});
  return c;
}

std::vector<std::byte> bytes_of(const std::vector<float>& values) {
  std::vector<std::byte> bytes(values.size() * sizeof(float));
  std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

void write_output(const fs::path& dir, const std::vector<float>& values) {
  fs::create_directories(dir);
  verify::write_npy(dir / "out.npy", "<f4", kElements, bytes_of(values));
}

std::uint64_t digest_of(const std::vector<float>& values) {
  return verify::combine_output_digests({run::output_digest(bytes_of(values))});
}

const std::vector<float> kReference{1.0f, -2.0f, 3.5f, 8192.0f};

// A bench of timed calls on seeds 11, 12, 13 (and 99 after the last sample), each of whose
// digests is that of `written[i]`; the reference of every seed is kReference.
struct Fixture {
  TempDir dir{"tolerance-audit-test"};
  VariantSamples samples{.label = "kernel.cu", .case_name = "default", .sample_seeds = {11, 12, 13},
                         .final_seed = 99, .digests = true};

  explicit Fixture(const std::vector<std::vector<float>>& written) {
    write_output(dir.path() / "reference", kReference);
    for (std::size_t i = 0; i < written.size(); ++i) {
      samples.sample_digests.push_back(digest_of(written[i]));
      write_output(kept_dir(samples.sample_seeds[i]), written[i]);
    }
  }
  fs::path kept_dir(std::uint64_t seed) const { return dir.path() / "kept" / std::to_string(seed); }
  verify::RunRecord verify(std::uint64_t seed) const {
    return verify_kept_call(reduction_case(), samples, {seed, kept_dir(seed)}, dir.path() / "reference");
  }
};

TEST(ToleranceAudit, OutputsThatDifferOnlyWithinTolerancePass) {
  const Fixture f({{1.0001f, -2.0f, 3.5f, 8192.05f}, kReference, kReference});
  EXPECT_TRUE(f.verify(11).passed()) << f.verify(11).findings.front().message;
}

TEST(ToleranceAudit, WorkSkippedWhileTimedFailsNamingTheCall) {
  const Fixture f({kReference, {0.001f, 0.002f, 0.0f, 0.004f}, kReference});  // noise instead of the sum
  const verify::RunRecord run = f.verify(12);
  ASSERT_FALSE(run.passed());
  EXPECT_THAT(run.findings.front().message, HasSubstr("timed call 2"));
  EXPECT_THAT(run.findings.front().message, HasSubstr("4 of 4 elements outside atol"));
}

TEST(ToleranceAudit, AnElementNeverWrittenFails) {
  const float poison = std::numeric_limits<float>::quiet_NaN();  // what 0xFF bytes read as
  const Fixture f({kReference, kReference, {1.0f, -2.0f, 3.5f, poison}});
  const verify::RunRecord run = f.verify(13);
  ASSERT_FALSE(run.passed());
  EXPECT_THAT(run.findings.front().message, HasSubstr("1 of 4 elements outside atol"));
}

TEST(ToleranceAudit, AConstantWrittenWhileTimedFailsWhereTheToleranceWouldTakeIt) {
  // Softmax-like outputs of ~1e-5 under float32's default tolerance: 2e-5 everywhere is within
  // 1e-4 of each, and is what a kernel writes that skips the work (verify/input_dependence.hpp).
  Fixture f({kReference, kReference, kReference});
  const std::vector<float> small{1.0e-5f, 2.0e-5f, 3.0e-5f, 1.5e-5f};
  const std::vector<float> constant(kElements, 2e-5f);
  write_output(f.dir.path() / "small-reference", small);
  write_output(f.kept_dir(12), constant);
  f.samples.sample_digests[1] = digest_of(constant);
  spec::BoundCase loose = reduction_case();
  loose.args[0].buffer->tolerance = {.atol = 1e-4, .rtol = 1e-3};
  const verify::RunRecord run = verify_kept_call(loose, f.samples, {12, f.kept_dir(12)}, f.dir.path() / "small-reference");
  ASSERT_FALSE(run.passed());
  EXPECT_EQ(run.findings.front().kind, verify::FindingKind::ignores_inputs);
  EXPECT_THAT(run.findings.front().message, HasSubstr("timed call 2, compared with the reference within tolerance: "
                                                      "output out: one value at every element"));
  write_output(f.kept_dir(12), small);  // the honest outputs pass the same comparison
  f.samples.sample_digests[1] = digest_of(small);
  EXPECT_TRUE(verify_kept_call(loose, f.samples, {12, f.kept_dir(12)}, f.dir.path() / "small-reference").passed());
}

TEST(ToleranceAudit, KeptOutputsThatAreNotWhatTheCallWroteFail) {
  Fixture f({kReference, kReference, kReference});
  // Right outputs on disk, but the digest taken right after the call was of something else.
  f.samples.sample_digests[0] = digest_of({0, 0, 0, 0});
  const verify::RunRecord run = f.verify(11);
  ASSERT_FALSE(run.passed());
  EXPECT_THAT(run.findings.front().message, HasSubstr("not what it wrote"));
}

TEST(ToleranceAudit, MissingKeptOutputsFail) {
  Fixture f({kReference});
  f.samples.digests = false;
  const verify::RunRecord run =
      verify_kept_call(reduction_case(), f.samples, {99, f.dir.path() / "nowhere"}, f.dir.path() / "reference");
  ASSERT_FALSE(run.passed());
  EXPECT_THAT(run.findings.front().message, HasSubstr("the call after the last sample"));
}

RetainedOutputs kept_calls(std::vector<std::uint64_t> seeds) {
  RetainedOutputs kept;
  for (std::uint64_t seed : seeds) kept.calls.push_back({seed, "/kept/" + std::to_string(seed)});
  return kept;
}

TEST(ToleranceAudit, ChoosesOnlyTimedCallsAndAtMostTheLimit) {
  VariantSamples samples{.sample_seeds = {1, 2, 3, 4, 5, 6, 7}, .final_seed = 8};
  std::mt19937_64 random(3);
  const auto chosen = choose_verified_calls(samples, kept_calls({1, 2, 3, 4, 5, 6, 7, 8, 500}), 4, random);
  ASSERT_EQ(chosen.size(), 4u);
  for (const RetainedCall& call : chosen) EXPECT_NE(call.seed, 500u);  // a discarded sample: not timed
  // Without enough kept calls, all of them; without any, none.
  EXPECT_EQ(choose_verified_calls(samples, kept_calls({8, 500}), 4, random).size(), 1u);
  EXPECT_TRUE(choose_verified_calls(samples, kept_calls({}), 4, random).empty());
}

// data/witness.toml [audit]: every call the worker can keep is compared against a .cu reference
// (a kernel that skips every other call escapes with 0.5^16), fewer against a .py one, which
// pays for each seed on the host.
TEST(ToleranceAudit, TheDataFileComparesEveryKeptCallAgainstACudaReference) {
  EXPECT_EQ(tolerance_verified_calls(false), kMaxRetainedCalls);
  EXPECT_LT(std::pow(0.5, static_cast<double>(tolerance_verified_calls(false))), 1e-4);
  EXPECT_GE(tolerance_verified_calls(true), 4u);
  EXPECT_LE(tolerance_verified_calls(true), tolerance_verified_calls(false));
}

TEST(ToleranceAudit, TheChoiceVariesWithTheRandomSource) {
  VariantSamples samples{.sample_seeds = {1, 2, 3, 4, 5, 6, 7, 9, 10, 11, 12, 13}, .final_seed = 8};
  const RetainedOutputs kept = kept_calls({1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13});
  std::set<std::uint64_t> ever_chosen;
  for (std::uint64_t seed = 0; seed < 50; ++seed) {
    std::mt19937_64 random(seed);
    for (const RetainedCall& call : choose_verified_calls(samples, kept, 4, random)) ever_chosen.insert(call.seed);
  }
  EXPECT_EQ(ever_chosen.size(), kept.calls.size());
}

// The worker's result names the kept seeds; the folders follow from them, beneath the
// retention folder, as the worker laid them out.
TEST(RetainedOutputs, AreTheSeedsTheWorkerReportedInItsFolders) {
  VariantSamples samples{.kept_seeds = {7, 300}};
  const RetainedOutputs kept = retained_outputs(samples, 1, 2, "/tmp/kept");
  ASSERT_EQ(kept.calls.size(), 2u);
  EXPECT_EQ(kept.calls[0].seed, 7u);
  EXPECT_EQ(kept.calls[0].dir, fs::path("/tmp/kept/1-2/000000000007"));
  EXPECT_EQ(kept.calls[1].dir, fs::path("/tmp/kept") / kept_call_dir(1, 2, 300));
  samples.kept_note = "too large";
  EXPECT_EQ(retained_outputs(samples, 0, 0, "/k").note, "too large");
}

VariantReport assessed(const VariantSamples& samples) {
  VariantReport v{.label = samples.label, .case_name = samples.case_name, .samples = samples};
  v.samples.gpu_seconds = {1e-3, 1e-3, 1e-3};
  v.samples.host_seconds = {1e-3, 1e-3, 1e-3};
  assess_variant(v, std::nullopt, spec::precision_named("fp32"), TimingMode::cold);
  return v;
}

VariantSamples unverifiable_by_digest() {
  VariantSamples samples{.label = "kernel.cu", .case_name = "default", .sample_seeds = {1, 2}};
  samples.recheck = verify::RunRecord{.case_name = "default"};
  samples.recheck->notes.emplace_back(kUnverifiableNote);
  return samples;
}

TEST(ApplyToleranceAudit, AVerifiedVariantHasNoWarningLeft) {
  VariantSamples samples = unverifiable_by_digest();
  EXPECT_TRUE(assessed(samples).timed_calls_unverified);
  apply_tolerance_audit(samples, {.verified = 3});
  const VariantReport v = assessed(samples);
  EXPECT_FALSE(v.timed_calls_unverified);
  EXPECT_TRUE(v.recheck_failure.empty());
}

TEST(ApplyToleranceAudit, AFailedCallIsTheVariantsRecheckFailure) {
  VariantSamples samples{.label = "kernel.cu", .case_name = "default"};  // no digest audit at all
  apply_tolerance_audit(samples, {.verified = 1, .failure = verify::Finding{verify::FindingKind::mismatch, "out", "timed call 4: bad"}});
  const VariantReport v = assessed(samples);
  EXPECT_EQ(v.recheck_failure, "timed call 4: bad");
  EXPECT_FALSE(v.timed_calls_unverified);
}

TEST(ApplyToleranceAudit, AnImpossibleAuditStaysAWarningWithItsReason) {
  VariantSamples samples = unverifiable_by_digest();
  apply_tolerance_audit(samples, {.unverifiable = "its reference failed: boom"});
  const VariantReport v = assessed(samples);
  EXPECT_TRUE(v.timed_calls_unverified);
  EXPECT_THAT(v.unverified_reason, HasSubstr("its reference failed: boom"));
  EXPECT_TRUE(v.recheck_failure.empty());
}

// A kernel with atomics whose check runs happened to agree is audited by digest too; where its
// timed calls' digests differ from their replays but the kept outputs agree with the reference,
// the outputs varied: no FLAG, a note.
VariantSamples differed_by_digest() {
  VariantSamples samples{.label = "kernel.cu", .case_name = "default", .sample_seeds = {1, 2}};
  samples.recheck = verify::RunRecord{.case_name = "default"};
  samples.recheck->findings.push_back({verify::FindingKind::mismatch, "", "32 of 34 audited calls wrote other outputs"});
  return samples;
}

TEST(ApplyToleranceAudit, ADigestMismatchOfOutputsThatAgreeWithinToleranceIsTheirVariation) {
  VariantSamples samples = differed_by_digest();
  EXPECT_FALSE(assessed(samples).recheck_failure.empty());
  apply_tolerance_audit(samples, {.verified = 16});
  const VariantReport v = assessed(samples);
  EXPECT_TRUE(v.recheck_failure.empty());
  EXPECT_FALSE(v.timed_calls_unverified);
  EXPECT_NE(std::ranges::find(samples.recheck->notes, kVariedThoughCheckAgreedNote), samples.recheck->notes.end());
}

TEST(ApplyToleranceAudit, ADigestMismatchStandsWhenNothingCouldBeComparedWithinTolerance) {
  VariantSamples samples = differed_by_digest();
  apply_tolerance_audit(samples, {.unverifiable = "the spec has no reference to compare them with"});
  const VariantReport v = assessed(samples);
  EXPECT_THAT(v.recheck_failure, HasSubstr("32 of 34"));
  EXPECT_FALSE(v.timed_calls_unverified);
}

// ... and a digest audit that passed is the verdict: no WARN for lack of a reference.
TEST(ApplyToleranceAudit, APassedDigestAuditNeedsNoComparisonWithinTolerance) {
  VariantSamples samples{.label = "kernel.cu", .case_name = "default", .sample_seeds = {1, 2}};
  samples.recheck = verify::RunRecord{.case_name = "default"};
  apply_tolerance_audit(samples, {.unverifiable = "the spec has no reference to compare them with"});
  const VariantReport v = assessed(samples);
  EXPECT_TRUE(v.recheck_failure.empty());
  EXPECT_FALSE(v.timed_calls_unverified);
}

// A tolerance failure fails the variant even where its digests matched.
TEST(ApplyToleranceAudit, AToleranceFailureStandsBesideADigestPass) {
  VariantSamples samples{.label = "kernel.cu", .case_name = "default", .sample_seeds = {1, 2}};
  samples.recheck = verify::RunRecord{.case_name = "default"};
  apply_tolerance_audit(samples, {.verified = 0, .failure = verify::Finding{verify::FindingKind::mismatch, "out", "timed call 2: bad"}});
  EXPECT_EQ(assessed(samples).recheck_failure, "timed call 2: bad");
}

TEST(VariesBetweenRuns, IsAnyRunOfTheCheckNotBitwiseReproducible) {
  verify::CheckReport check;
  check.runs = {verify::RunRecord{.seed = 1}, verify::RunRecord{.seed = 2}};
  EXPECT_FALSE(varies_between_runs(check));
  check.runs[1].bitwise_reproducible = false;
  EXPECT_TRUE(varies_between_runs(check));
}

TEST(RetentionCapacity, FitsTheBudgetAndTheCeiling) {
  constexpr std::size_t GiB = std::size_t{1} << 30;
  EXPECT_EQ(retention_capacity(4, 80 * GiB, 1), kMaxRetainedCalls);      // a sum: as many as allowed
  EXPECT_EQ(retention_capacity(GiB / 2, 80 * GiB, 1), 4u);               // 2 GiB ceiling
  EXPECT_EQ(retention_capacity(GiB / 2, 80 * GiB, 2), 2u);               // shared between variants
  EXPECT_EQ(retention_capacity(GiB / 2, 4 * GiB, 1), 2u);                // a quarter of what is free
  EXPECT_EQ(retention_capacity(3 * GiB, 80 * GiB, 1), 0u);               // not even one
  EXPECT_EQ(retention_capacity(0, 80 * GiB, 1), 0u);
}

TEST(ReservoirChoice, FillsTheSlotsFirstThenReplacesAtRandom) {
  EXPECT_TRUE(reservoir_choice(0, 4, 12345).keep);
  EXPECT_EQ(reservoir_choice(3, 4, 12345).slot, 3u);
  EXPECT_FALSE(reservoir_choice(0, 0, 0).keep);
  // The 10th call (9 before it): kept when draw % 10 < 4, in that slot.
  EXPECT_EQ(reservoir_choice(9, 4, 22).slot, 2u);
  EXPECT_FALSE(reservoir_choice(9, 4, 27).keep);
}

// Every timed call is equally likely to end up kept, whatever its place in the loop: a kernel
// that skips work on late calls (or early ones) is kept as often as its share.
TEST(ReservoirChoice, KeepsEveryCallWithTheSameChance) {
  constexpr std::size_t kCalls = 40, kCapacity = 4, kTrials = 20000;
  std::vector<std::size_t> kept_count(kCalls, 0);
  std::mt19937_64 random(5);
  for (std::size_t t = 0; t < kTrials; ++t) {
    std::vector<std::size_t> slots(kCapacity, kCalls);
    for (std::size_t call = 0; call < kCalls; ++call) {
      const ReservoirChoice choice = reservoir_choice(call, kCapacity, random());
      if (choice.keep) slots[choice.slot] = call;
    }
    for (std::size_t call : slots) ++kept_count[call];
  }
  const double expected = static_cast<double>(kTrials * kCapacity) / kCalls;  // 2000
  for (std::size_t call = 0; call < kCalls; ++call) {
    EXPECT_NEAR(static_cast<double>(kept_count[call]), expected, 0.1 * expected) << "call " << call;
  }
}

}  // namespace
}  // namespace kopt::measure
