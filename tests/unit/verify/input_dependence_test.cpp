#include "kopt/verify/input_dependence.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <utility>

#include "kopt/spec/dtype.hpp"

namespace kopt::verify {
namespace {

using ::testing::HasSubstr;

const InputDependenceRule kRule{.rounding_ulps = 64, .least_share = 0.01};

std::vector<std::byte> float_bytes(const std::vector<float>& values) {
  std::vector<std::byte> bytes(values.size() * sizeof(float));
  std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

spec::BoundBuffer float_output(std::int64_t elements, spec::Tolerance tolerance) {
  return {.name = "y", .dtype = spec::dtype_named("float32"), .elements = elements, .shape = {elements},
          .is_output = true, .tolerance = tolerance};
}

OutputError compared(const std::vector<float>& out, const std::vector<float>& ref, const spec::BoundBuffer& buffer) {
  return compare_to_reference(buffer.name, float_bytes(out), float_bytes(ref), run::ElementType::float32, 4,
                              buffer.tolerance);
}

// Softmax-like outputs of ~1e-5 under float32's default tolerance (atol 1e-4): every value lies
// within atol of one constant, though they differ from each other by a factor of three.
const std::vector<float> kSmallReference = {1.0e-5f, 2.0e-5f, 3.0e-5f, 1.5e-5f};
const std::vector<float> kOtherSeedsReference = {2.5e-5f, 0.5e-5f, 1.2e-5f, 2.9e-5f};
const spec::Tolerance kDefaultFp32{.atol = 1e-4, .rtol = 1e-3};

TEST(MateriallyDifferent, AllowsRoundingAndCountsMoreThanIt) {
  const double eps = 1.1920929e-07;
  EXPECT_FALSE(materially_different(1.0, 1.0 + 10 * eps, eps, kRule));  // ten ulps: rounding
  EXPECT_TRUE(materially_different(1.0, 1.0 + 100 * eps, eps, kRule));
  EXPECT_FALSE(materially_different(0.0, 0.0, eps, kRule));
  EXPECT_TRUE(materially_different(0.0, 1e-30, eps, kRule));            // any departure from zero
  EXPECT_TRUE(materially_different(3.0, 4.0, 0, kRule));                // integers: a whole unit
  EXPECT_FALSE(materially_different(3.0, 3.0, 0, kRule));
}

TEST(CompareToReference, NotesTheConstantsTheToleranceAccepts) {
  const spec::BoundBuffer buffer = float_output(4, kDefaultFp32);
  const OutputError error = compared({1e-5f, 1e-5f, 1e-5f, 1e-5f}, kSmallReference, buffer);
  EXPECT_TRUE(error.spread_known);
  EXPECT_TRUE(error.output_constant);
  EXPECT_TRUE(error.reference_finite);
  EXPECT_FLOAT_EQ(error.reference_low, 1e-5f);
  EXPECT_FLOAT_EQ(error.reference_high, 3e-5f);
  // Every value within 1e-4 + 1e-3|r| of c: c in [3e-5 - 1.0003e-4, 1e-5 + 1.00001e-4].
  EXPECT_NEAR(error.accepted_low, 3e-5 - (1e-4 + 1e-3 * 3e-5), 1e-12);
  EXPECT_NEAR(error.accepted_high, 1e-5 + (1e-4 + 1e-3 * 1e-5), 1e-12);

  const OutputError tight = compare_to_reference("y", float_bytes({1, 2, 3, 4}), float_bytes({1, 2, 3, 4}),
                                                 run::ElementType::float32, 4, kDefaultFp32);
  EXPECT_FALSE(tight.output_constant);
  EXPECT_GT(tight.accepted_low, tight.accepted_high);  // no constant is within 1e-4 of 1 and 4
}

TEST(JudgeConstantOutput, FailsAConstantOutputTheLooseToleranceAccepts) {
  const spec::BoundBuffer buffer = float_output(4, kDefaultFp32);
  const OutputError first = compared({2e-5f, 2e-5f, 2e-5f, 2e-5f}, kSmallReference, buffer);
  const OutputError second = compared({2e-5f, 2e-5f, 2e-5f, 2e-5f}, kOtherSeedsReference, buffer);
  ASSERT_TRUE(first.passed() && second.passed());  // the tolerance alone lets it through
  const ConstantOutputVerdict verdict =
      judge_constant_output({.case_name = "default", .buffer = &buffer, .errors = {&first, &second},
                             .kernel_digests = {7, 7}},
                            kRule);
  ASSERT_TRUE(verdict.failure);
  EXPECT_THAT(*verdict.failure, HasSubstr("output y: one value at every element and each of 2 seeds"));
  EXPECT_THAT(*verdict.failure, HasSubstr("does not follow the inputs"));
  EXPECT_FALSE(verdict.warning);
}

TEST(JudgeConstantOutput, WarnsWhereAnHonestKernelPassesALooseTolerance) {
  const spec::BoundBuffer buffer = float_output(4, kDefaultFp32);
  const OutputError honest = compared({1.00001e-5f, 2e-5f, 3e-5f, 1.5e-5f}, kSmallReference, buffer);
  const ConstantOutputVerdict verdict =
      judge_constant_output({.case_name = "default", .buffer = &buffer, .errors = {&honest}, .kernel_digests = {7}}, kRule);
  EXPECT_FALSE(verdict.failure);
  ASSERT_TRUE(verdict.warning);
  EXPECT_THAT(*verdict.warning, HasSubstr("case default, output y: one constant"));
  EXPECT_THAT(*verdict.warning, HasSubstr("a kernel that ignores its inputs would pass this case"));
}

TEST(JudgeConstantOutput, HoldsAConstantThatMovesWithTheSeedToBeInputDependent) {
  // Constant within each seed, another constant for the other seed: a broadcast of something
  // the inputs decide, not an output that ignores them.
  const spec::BoundBuffer buffer = float_output(4, kDefaultFp32);
  const OutputError first = compared({2e-5f, 2e-5f, 2e-5f, 2e-5f}, kSmallReference, buffer);
  const OutputError second = compared({1e-5f, 1e-5f, 1e-5f, 1e-5f}, kOtherSeedsReference, buffer);
  const ConstantOutputVerdict verdict = judge_constant_output(
      {.case_name = "default", .buffer = &buffer, .errors = {&first, &second}, .kernel_digests = {7, 8}}, kRule);
  EXPECT_FALSE(verdict.failure);
  EXPECT_TRUE(verdict.warning);
}

TEST(JudgeConstantOutput, SaysNothingWhereTheToleranceTellsValuesApart) {
  const spec::BoundBuffer buffer = float_output(4, {.atol = 1e-7, .rtol = 2e-5});
  const OutputError honest = compared(kSmallReference, kSmallReference, buffer);
  const ConstantOutputVerdict verdict =
      judge_constant_output({.case_name = "default", .buffer = &buffer, .errors = {&honest}, .kernel_digests = {7}}, kRule);
  EXPECT_FALSE(verdict.failure);
  EXPECT_FALSE(verdict.warning);
}

TEST(JudgeConstantOutput, WarnsOfAReferenceThatIsOneValueEverywhere) {
  // A correct constant is no cheat: the case simply cannot tell a kernel that computes it.
  const spec::BoundBuffer buffer = float_output(3, kDefaultFp32);
  const OutputError error = compared({1, 1, 1}, {1, 1, 1}, buffer);
  const ConstantOutputVerdict verdict =
      judge_constant_output({.case_name = "ones", .buffer = &buffer, .errors = {&error}, .kernel_digests = {7}}, kRule);
  EXPECT_FALSE(verdict.failure);
  ASSERT_TRUE(verdict.warning);
  EXPECT_THAT(*verdict.warning, HasSubstr("case ones, output y: the reference is 1 at every element"));
}

TEST(JudgeConstantOutput, LeavesOneValueSeenOnceAndAMismatchAlone) {
  const spec::BoundBuffer scalar = float_output(1, kDefaultFp32);
  const OutputError one = compared({5}, {5}, scalar);
  EXPECT_FALSE(judge_constant_output({.case_name = "c", .buffer = &scalar, .errors = {&one}, .kernel_digests = {7}}, kRule)
                   .warning);
  // A constant outside the tolerance is a mismatch, reported as one: no second finding.
  const spec::BoundBuffer buffer = float_output(4, kDefaultFp32);
  const OutputError wrong = compared({1, 1, 1, 1}, kSmallReference, buffer);
  ASSERT_FALSE(wrong.passed());
  EXPECT_FALSE(judge_constant_output(
                   {.case_name = "c", .buffer = &buffer, .errors = {&wrong}, .kernel_digests = {7}}, kRule)
                   .failure);
}

// A report of one case with seeds 11 and 12, its runs compared as check.cpp compares them, and
// the references kept for the reader.
struct CheckedCase {
  CheckReport report;
  std::map<std::size_t, std::vector<float>> references;

  CheckedCase(const spec::BoundBuffer& buffer, const std::vector<std::vector<float>>& outputs,
              const std::vector<std::vector<float>>& refs, const std::vector<std::uint64_t>& digests) {
    spec::BoundCase bound{.name = "default"};
    bound.args.push_back({.buffer = buffer});
    report.seeds = {11, 12};
    report.cases = {bound};
    for (std::size_t s = 0; s < outputs.size(); ++s) {
      RunRecord run{.case_name = "default", .case_index = 0, .seed = report.seeds[s]};
      run.outputs.push_back(compared(outputs[s], refs[s], buffer));
      if (!run.outputs.back().passed()) run.findings.push_back({FindingKind::mismatch, "y", "outside"});
      run.output_digests = {digests[s]};
      report.runs.push_back(std::move(run));
      references[s] = refs[s];
    }
  }

  ReferenceReader reader() {
    return [this](std::size_t, std::size_t seed, const spec::BoundBuffer&) { return float_bytes(references.at(seed)); };
  }
};

TEST(JudgeConstantOutput, FailsAScalarTheSameForEverySeedButWarnsOfNoScalar) {
  // A sum over three inputs, atol 1: three seeds' sums within 2 of each other happen by chance,
  // so no warning; the same bytes for all three, where the sums differ, is no chance.
  const spec::BoundBuffer scalar = float_output(1, {.atol = 1.0, .rtol = 1e-5});
  const OutputError a = compared({0.5f}, {0.1f}, scalar);
  const OutputError b = compared({0.5f}, {0.9f}, scalar);
  const OutputError c = compared({0.5f}, {1.2f}, scalar);
  const ConstantOutputVerdict same = judge_constant_output(
      {.case_name = "N=3", .buffer = &scalar, .errors = {&a, &b, &c}, .kernel_digests = {5, 5, 5}}, kRule);
  ASSERT_TRUE(same.failure);
  EXPECT_THAT(*same.failure, HasSubstr("each of 3 seeds"));
  const OutputError honest_b = compared({0.9f}, {0.9f}, scalar);
  const ConstantOutputVerdict honest = judge_constant_output(
      {.case_name = "N=3", .buffer = &scalar, .errors = {&a, &honest_b, &c}, .kernel_digests = {5, 6, 5}}, kRule);
  EXPECT_FALSE(honest.failure);
  EXPECT_FALSE(honest.warning);
}

TEST(JudgeInputDependence, FailsTheFirstRunOfAConstantOutputAndWarnsOfNothingElse) {
  const spec::BoundBuffer buffer = float_output(4, kDefaultFp32);
  CheckedCase checked(buffer, {{2e-5f, 2e-5f, 2e-5f, 2e-5f}, {2e-5f, 2e-5f, 2e-5f, 2e-5f}},
                      {kSmallReference, kOtherSeedsReference}, {7, 7});
  judge_input_dependence(checked.report, checked.reader(), kRule);
  ASSERT_FALSE(checked.report.passed());
  EXPECT_EQ(checked.report.runs[0].findings.front().kind, FindingKind::ignores_inputs);
  EXPECT_THAT(checked.report.cause(), HasSubstr("does not follow the inputs (case default, seed 11)"));
  EXPECT_TRUE(checked.report.warnings.empty());
}

TEST(JudgeInputDependence, FailsAnOutputReplayedForAnotherSeed) {
  // Within 1e-4 of both references, not constant: the second seed's output is the first's bytes.
  const spec::BoundBuffer buffer = float_output(4, kDefaultFp32);
  const std::vector<float> replayed = {1.0e-5f, 2.0e-5f, 3.0e-5f, 1.5e-5f};
  CheckedCase checked(buffer, {replayed, replayed}, {kSmallReference, kOtherSeedsReference}, {7, 7});
  judge_input_dependence(checked.report, checked.reader(), kRule);
  EXPECT_TRUE(checked.report.runs[0].passed());
  ASSERT_FALSE(checked.report.runs[1].passed());
  EXPECT_THAT(checked.report.runs[1].findings.front().message,
              HasSubstr("output y is the same, byte for byte, as for seed 11, where the reference differs beyond "
                        "rounding at 4 of 4 elements"));
  EXPECT_EQ(checked.report.warnings.size(), 1u);  // and the tolerance is as loose as it is
}

TEST(JudgeInputDependence, AcceptsTheSameOutputWhereTheReferencesDifferOnlyByRounding) {
  // 1.0 and the float just below it: a float64 reference rounded either way for two seeds; an
  // honest float32 kernel may well write 1.0 both times.
  const spec::BoundBuffer buffer = float_output(2, {.atol = 0, .rtol = 1e-6});
  const float below_one = std::nextafter(1.0f, 0.0f);
  CheckedCase checked(buffer, {{1.0f, 2.0f}, {1.0f, 2.0f}}, {{1.0f, 2.0f}, {below_one, 2.0f}}, {7, 7});
  judge_input_dependence(checked.report, checked.reader(), kRule);
  EXPECT_TRUE(checked.report.passed());
  EXPECT_TRUE(checked.report.warnings.empty());
}

TEST(JudgeInputDependence, LeavesHonestOutputsAlone) {
  const spec::BoundBuffer buffer = float_output(4, {.atol = 1e-7, .rtol = 2e-5});
  CheckedCase checked(buffer, {kSmallReference, kOtherSeedsReference}, {kSmallReference, kOtherSeedsReference},
                      {7, 8});
  judge_input_dependence(checked.report, checked.reader(), kRule);
  EXPECT_TRUE(checked.report.passed());
  EXPECT_TRUE(checked.report.warnings.empty());
}

TEST(InputDependenceRule, ReadsItsDataFile) {
  const InputDependenceRule& rule = input_dependence_rule();
  EXPECT_GE(rule.rounding_ulps, 1);
  EXPECT_GT(rule.least_share, 0);
  EXPECT_LE(rule.least_share, 1);
}

}  // namespace
}  // namespace kopt::verify
