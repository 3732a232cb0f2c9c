#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "kopt/core/error.hpp"
#include "kopt/measure/bench.hpp"
#include "kopt/measure/bench_assessment.hpp"
#include "kopt/measure/timed_call_audit.hpp"
#include "kopt/measure/bench_job.hpp"
#include "kopt/measure/peaks.hpp"
#include "kopt/spec/precision.hpp"

namespace kopt::measure {
namespace {

const spec::PrecisionPolicy& fp32_policy() { return spec::precision_named("fp32"); }
const spec::PrecisionPolicy& tf32_policy() { return spec::precision_named("tf32"); }

VariantReport variant(double gpu, double host, std::size_t n = 20) {
  VariantReport v{.label = "k", .case_name = "default"};
  for (std::size_t i = 0; i < n; ++i) {
    v.samples.gpu_seconds.push_back(gpu * (1 + 0.001 * static_cast<double>(i % 3)));
    v.samples.host_seconds.push_back(host);
  }
  return v;
}

// The samples of a 1 ms variant called `label`, timed on the case "default".
VariantSamples samples_of(const std::string& label) {
  VariantSamples samples = variant(1e-3, 1.01e-3).samples;
  samples.label = label;
  samples.case_name = "default";
  return samples;
}

TEST(DatasheetPeaks, KnowsTheH200) {
  auto peaks = datasheet_peaks("NVIDIA H200");
  ASSERT_TRUE(peaks.has_value());
  EXPECT_DOUBLE_EQ(peaks->dram_bytes_per_second, 4.8e12);
  EXPECT_DOUBLE_EQ(peaks->flops.at("fp32"), 67e12);
  EXPECT_FALSE(datasheet_peaks("Some Future GPU").has_value());
}

TEST(RooflineFloor, IsTheLargerOfComputeAndMemoryTime) {
  DevicePeaks peaks{.dram_bytes_per_second = 1e12, .flops = {{"fp32", 10e12}, {"tf32_tensor", 100e12}}};
  // fp32 data may run on TF32 tensor cores only under the tf32 policy.
  EXPECT_DOUBLE_EQ(roofline_floor_seconds(peaks, tf32_policy(), 100e12, 0), 1.0);
  EXPECT_DOUBLE_EQ(roofline_floor_seconds(peaks, fp32_policy(), 0, 2e12), 2.0);
  EXPECT_DOUBLE_EQ(roofline_floor_seconds(peaks, tf32_policy(), 100e12, 2e12), 2.0);
  EXPECT_DOUBLE_EQ(roofline_floor_seconds(peaks, fp32_policy(), 0, 0), 0.0);
}

// A kernel held to strict FP32 cannot hide TF32 tensor cores (or a replayed answer) under a
// floor drawn from the tensor-core rate: 10x tighter here.
TEST(RooflineFloor, StrictFp32IsHeldToTheSimtRate) {
  DevicePeaks peaks{.dram_bytes_per_second = 1e12, .flops = {{"fp32", 10e12}, {"tf32_tensor", 100e12}}};
  EXPECT_DOUBLE_EQ(roofline_floor_seconds(peaks, fp32_policy(), 100e12, 0), 10.0);
  EXPECT_DOUBLE_EQ(roofline_floor_seconds(peaks, tf32_policy(), 100e12, 0), 1.0);
  VariantReport tf32 = variant(2.0, 2.0);
  tf32.flops = 100e12;
  assess_variant(tf32, peaks, fp32_policy(), TimingMode::cold);
  EXPECT_TRUE(tf32.below_floor);
  VariantReport allowed = variant(2.0, 2.0);
  allowed.flops = 100e12;
  assess_variant(allowed, peaks, tf32_policy(), TimingMode::cold);
  EXPECT_FALSE(allowed.below_floor);
}

// A variant whose samples were all dropped (throttled batches, a time-out) still carries the
// audit's verdict on its timed calls: a wrong kernel is not hidden behind "no samples".
TEST(AssessVariant, TheAuditsFailureStandsWithoutASample) {
  VariantReport v{.label = "k", .case_name = "default"};
  v.samples.recheck = verify::RunRecord{.case_name = "default"};
  v.samples.recheck->findings.push_back({verify::FindingKind::mismatch, "", "3 of 9 audited calls wrote other outputs"});
  assess_variant(v, std::nullopt, fp32_policy(), TimingMode::cold);
  EXPECT_EQ(v.summary.count, 0u);
  EXPECT_EQ(v.recheck_failure, "3 of 9 audited calls wrote other outputs");
}

TEST(AssessVariant, ATimeUnderTheFloorIsImpossibleInColdModeOnly) {
  DevicePeaks peaks{.dram_bytes_per_second = 1e12};
  VariantReport v = variant(1e-3, 1.01e-3);
  v.bytes = 2e9;  // 2 ms at 1 TB/s
  assess_variant(v, peaks, fp32_policy(), TimingMode::cold);
  EXPECT_TRUE(v.below_floor);
  EXPECT_DOUBLE_EQ(v.floor_seconds, 2e-3);
  EXPECT_NEAR(v.bytes_per_second, 2e12, 1e10);

  VariantReport warm = variant(1e-3, 1.01e-3);
  warm.bytes = 2e9;
  assess_variant(warm, peaks, fp32_policy(), TimingMode::warm);
  EXPECT_FALSE(warm.below_floor) << "an L2-resident warm run may beat DRAM bandwidth";
}

TEST(AssessVariant, HostTimeFarAboveEventTimeMeansWorkEscapedTheEvents) {
  VariantReport honest = variant(200e-6, 220e-6);
  assess_variant(honest, std::nullopt, fp32_policy(), TimingMode::cold);
  EXPECT_FALSE(honest.escapes_events);
  VariantReport side_stream = variant(5e-6, 1.1e-3);
  assess_variant(side_stream, std::nullopt, fp32_policy(), TimingMode::cold);
  EXPECT_TRUE(side_stream.escapes_events);
  EXPECT_NEAR(side_stream.median_host_gap_seconds, 1.095e-3, 1e-5);
}

TEST(AssessVariant, AFailedRecheckIsKept) {
  VariantReport v = variant(1e-3, 1.01e-3);
  v.samples.recheck = verify::RunRecord{.case_name = "default", .seed = 2};
  v.samples.recheck->findings.push_back({verify::FindingKind::mismatch, "C", "output C: 10 of 10 elements outside"});
  assess_variant(v, std::nullopt, fp32_policy(), TimingMode::cold);
  EXPECT_EQ(v.recheck_failure, "output C: 10 of 10 elements outside");
}

TEST(AssessVariant, TimedCallsThatCouldNotBeComparedAreMarkedUnverifiedNotFailed) {
  VariantReport v = variant(1e-3, 1.01e-3);
  v.samples.recheck = verify::RunRecord{.case_name = "default", .seed = 2};
  v.samples.recheck->notes.push_back(std::string(kUnverifiableNote));
  assess_variant(v, std::nullopt, fp32_policy(), TimingMode::cold);
  EXPECT_TRUE(v.timed_calls_unverified);
  EXPECT_TRUE(v.recheck_failure.empty());

  VariantReport verified = variant(1e-3, 1.01e-3);
  verified.samples.recheck = verify::RunRecord{.case_name = "default", .seed = 2};
  assess_variant(verified, std::nullopt, fp32_policy(), TimingMode::cold);
  EXPECT_FALSE(verified.timed_calls_unverified);
}

// Unverified timed calls fail the verdict where a reference could have verified them (the
// kernel's outputs vary and could not be kept: its doing); without a reference, the spec is
// the cause, and it is said as a warning.
TEST(AddVariants, UnverifiedTimedCallsAreFlaggedWhereTheSpecHasAReference) {
  for (const bool with_reference : {true, false}) {
    spec::Problem problem;
    problem.cases.push_back({.name = "default"});
    if (with_reference) problem.spec.reference = "reference.cu";
    VariantSamples samples = variant(1e-3, 1.01e-3).samples;
    samples.label = "kernel.cu";
    samples.case_name = "default";
    samples.recheck = verify::RunRecord{.case_name = "default"};
    samples.recheck->notes.push_back(std::string(kUnverifiableNote));
    BenchReport report;
    add_variants(report, problem, {samples}, TimingMode::cold, true);
    const std::vector<std::string>& said = with_reference ? report.flags : report.warnings;
    ASSERT_EQ(said.size(), 1u) << with_reference;
    EXPECT_THAT(said.front(), ::testing::HasSubstr("kernel.cu (case default): its timed calls are not verified"));
    EXPECT_TRUE((with_reference ? report.warnings : report.flags).empty());
  }
}

// A flag concerns a pair when it names either of its variants, or none (the timing worker as a
// whole); a flag about a third variant leaves the pair's verdict standing.
TEST(VerdictIsFlagged, WhenAFlagNamesEitherVariantOrNone) {
  BenchReport report;
  for (const char* label : {"a.cu", "b.cu", "c.cu"}) report.variants.push_back({.label = label, .case_name = "default"});
  const PairVerdict pair{.case_name = "default", .baseline = "a.cu", .label = "b.cu"};
  EXPECT_FALSE(verdict_is_flagged(report, pair));
  report.flags = {"c.cu (case default): median below the roofline floor"};
  EXPECT_FALSE(verdict_is_flagged(report, pair));
  for (const char* flag : {"b.cu (case default): solve left host threads", "a.cu (case default): the host saw more",
                           "the timing worker's witness pipe was written to by something else"}) {
    report.flags = {flag};
    EXPECT_TRUE(verdict_is_flagged(report, pair)) << flag;
  }
  EXPECT_THAT(variants_named_by("b.cu (case default): x", report), ::testing::ElementsAre("b.cu"));
  EXPECT_THAT(variants_named_by("b.cu (case other): x", report), ::testing::IsEmpty());
}

// A thread that solve left running can launch work on the samples of the variants timed beside
// it: beside another variant that is a FLAG naming the one that left it (not its victim);
// timed alone, a warning. Many threads are named four at a time.
TEST(AddVariants, AgentsLeftBehindAreFlaggedWhereOtherVariantsShareTheWorker) {
  spec::Problem problem;
  problem.cases.push_back({.name = "default"});
  VariantSamples saboteur = samples_of("saboteur.cu");
  saboteur.agents_left = {"thread 41 'a'", "thread 42 'b'", "thread 43", "POSIX timer 0", "interval timer ITIMER_REAL"};
  VariantSamples victim = saboteur;
  victim.label = "victim.cu";
  victim.agents_left.clear();

  BenchReport beside;
  add_variants(beside, problem, {saboteur, victim}, TimingMode::cold, true);
  ASSERT_EQ(beside.flags.size(), 1u);
  EXPECT_THAT(beside.flags.front(),
              ::testing::HasSubstr("saboteur.cu (case default): solve left host threads, processes or timers running after it "
                                   "returned (thread 41 'a', thread 42 'b', thread 43, POSIX timer 0 and 1 more)"));
  EXPECT_THAT(beside.flags.front(), ::testing::Not(::testing::HasSubstr("victim.cu")));
  EXPECT_TRUE(beside.warnings.empty());

  BenchReport alone;
  add_variants(alone, problem, {saboteur}, TimingMode::cold, true);
  EXPECT_TRUE(alone.flags.empty());
  ASSERT_EQ(alone.warnings.size(), 1u);
  EXPECT_THAT(alone.warnings.front(), ::testing::HasSubstr("saboteur.cu (case default): solve left host threads"));

  BenchReport honest;
  add_variants(honest, problem, {victim, victim}, TimingMode::cold, true);
  EXPECT_TRUE(honest.flags.empty());
  EXPECT_TRUE(honest.warnings.empty());
}

// A seccomp filter or a tracer answers the worker's getrandom, which draws the timed calls'
// seeds: the variant could pick its own inputs, so it is flagged even timed alone, and the
// loop fails it (the flag names it as "LABEL (case CASE): ").
TEST(AddVariants, AnInterceptorOfSystemCallsIsFlaggedEvenAlone) {
  spec::Problem problem;
  problem.cases.push_back({.name = "default"});
  VariantSamples chooser = samples_of("chooser.cu");
  chooser.interceptors_installed = {"1 more seccomp filter(s)"};
  BenchReport alone;
  add_variants(alone, problem, {chooser}, TimingMode::cold, true);
  ASSERT_EQ(alone.flags.size(), 1u);
  EXPECT_THAT(alone.flags.front(),
              ::testing::HasSubstr("chooser.cu (case default): solve installed what can answer the timing worker's "
                                   "system calls (1 more seccomp filter(s))"));
  EXPECT_THAT(variants_named_by(alone.flags.front(), alone), ::testing::ElementsAre("chooser.cu"));
}

// A pointer of kopt's own data led into the kernel's code after its calls: kopt's timer, launches
// or digests ran the kernel's code; flagged even timed alone, and the loop fails it.
TEST(AddVariants, KoptsOwnCallsPointedAtTheKernelsCodeAreFlaggedEvenAlone) {
  spec::Problem problem;
  problem.cases.push_back({.name = "default"});
  VariantSamples hooker = samples_of("hooker.cu");
  hooker.code_pointers_redirected = {"1 pointer(s) of kopt's data into libcuda.so.1 now lead into kernel.so"};
  BenchReport alone;
  add_variants(alone, problem, {hooker}, TimingMode::cold, true);
  ASSERT_EQ(alone.flags.size(), 1u);
  EXPECT_THAT(alone.flags.front(),
              ::testing::HasSubstr("hooker.cu (case default): solve pointed kopt's own calls at its code (1 pointer(s) "
                                   "of kopt's data into libcuda.so.1 now lead into kernel.so)"));
  EXPECT_THAT(variants_named_by(alone.flags.front(), alone), ::testing::ElementsAre("hooker.cu"));
}

// A variant whose calls change a device-wide default (the L2 fetch granularity, the cache
// configuration) works on the variants timed after it: flagged beside others, named alone; what
// only its warm-up set is a warning, since every variant after it ran under the same.
TEST(AddVariants, DeviceSettingsLeftChangedAreFlaggedWhereOtherVariantsShareTheWorker) {
  spec::Problem problem;
  problem.cases.push_back({.name = "default"});
  VariantSamples saboteur = samples_of("saboteur.cu");
  saboteur.settings_changed = {"cudaLimitMaxL2FetchGranularity 64 -> 32"};
  VariantSamples victim = saboteur;
  victim.label = "victim.cu";
  victim.settings_changed.clear();

  BenchReport beside;
  add_variants(beside, problem, {saboteur, victim}, TimingMode::cold, true);
  ASSERT_EQ(beside.flags.size(), 1u);
  EXPECT_THAT(beside.flags.front(),
              ::testing::HasSubstr("saboteur.cu (case default): solve changed device-wide settings and left them changed "
                                   "after it returned (cudaLimitMaxL2FetchGranularity 64 -> 32); kopt put them back"));
  EXPECT_THAT(beside.flags.front(), ::testing::Not(::testing::HasSubstr("victim.cu")));

  BenchReport alone;
  add_variants(alone, problem, {saboteur}, TimingMode::cold, true);
  EXPECT_TRUE(alone.flags.empty());
  ASSERT_EQ(alone.warnings.size(), 1u);

  VariantSamples configures = victim;
  configures.settings_set_in_warmup = {"cudaLimitMallocHeapSize 8388608 -> 67108864"};
  BenchReport warmup;
  add_variants(warmup, problem, {configures, victim}, TimingMode::cold, true);
  EXPECT_TRUE(warmup.flags.empty());
  ASSERT_EQ(warmup.warnings.size(), 1u);
  EXPECT_THAT(warmup.warnings.front(), ::testing::HasSubstr("victim.cu (case default): its warm-up changed device-wide "
                                                            "settings (cudaLimitMallocHeapSize 8388608 -> 67108864)"));
}

}  // namespace
}  // namespace kopt::measure

namespace kopt::measure {
namespace {

TEST(TimingMode, NamesRoundTripAndAnUnknownOneIsRefusedWithTheChoices) {
  for (TimingMode mode : {TimingMode::cold, TimingMode::warm, TimingMode::graph}) {
    EXPECT_EQ(timing_mode_from_name(timing_mode_name(mode)), mode);
  }
  try {
    timing_mode_from_name("hot");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::bad_input);
    EXPECT_THAT(e.what(), ::testing::HasSubstr("cold, warm or graph"));
  }
}


// kopt bench times the [dims] case unless told otherwise; every case is still checked.
spec::Problem problem_with_cases(std::vector<std::string> names) {
  spec::Problem problem;
  problem.spec.name = "vector_add";
  for (std::string& name : names) problem.cases.push_back({.name = std::move(name)});
  return problem;
}

std::vector<std::string> names_of(const std::vector<spec::BoundCase>& cases) {
  std::vector<std::string> names;
  for (const spec::BoundCase& c : cases) names.push_back(c.name);
  return names;
}

TEST(TimedCases, ThePerfCaseIsTheDefaultCaseWhereverItIs) {
  const spec::Problem problem = problem_with_cases({"N=3", "default", "N=1000003"});
  EXPECT_EQ(perf_case(problem).name, "default");
  EXPECT_THAT(names_of(timed_cases(problem, TimedCases::perf_case)), testing::ElementsAre("default"));
  EXPECT_THAT(names_of(timed_cases(problem, TimedCases::all)), testing::ElementsAre("N=3", "default", "N=1000003"));
}

TEST(TimedCases, WithoutADefaultCaseTheFirstIsTimed) {
  const spec::Problem problem = problem_with_cases({"small", "large"});
  EXPECT_EQ(perf_case(problem).name, "small");
  EXPECT_THAT(names_of(timed_cases(problem, TimedCases::perf_case)), testing::ElementsAre("small"));
  EXPECT_THROW(perf_case(problem_with_cases({})), Error);
}

}  // namespace
}  // namespace kopt::measure
