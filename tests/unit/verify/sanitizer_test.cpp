#include "kopt/verify/sanitizer.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace kopt::verify {
namespace {
using ::testing::HasSubstr;

// compute-sanitizer's text in the format its manual documents (every line of the tool's own
// prefixed "========= "; the application's lines unprefixed), written here by hand: the
// GPU tests (gpu.sanitize.*) run the real tool on planted kernels.
constexpr const char* kMemcheck = R"(========= COMPUTE-SANITIZER
progress: checking case N=4099
========= Invalid __global__ read of size 4 bytes
=========     at vector_add_oob(const float *, const float *, float *, int)+0x1b0 in kernel.cu:14
=========     by thread (255,0,0) in block (3,0,0)
=========     Address 0x7f3c2e140000 is out of bounds
=========     and is 245,764 bytes after the nearest allocation at 0x7f3c2e100000 of size 24,588 bytes
=========     Saved host backtrace up to driver entry point at kernel launch time
=========     Host Frame: [0x2f0b1e] in libcuda.so.1
=========         Host Frame: solve in lib.so
=========
========= Invalid __global__ read of size 4 bytes
=========     at vector_add_oob(const float *, const float *, float *, int)+0x1b0 in kernel.cu:14
=========     by thread (255,0,0) in block (4,0,0)
=========     Address 0x7f3c2e140400 is out of bounds
=========
========= ERROR SUMMARY: 2 errors
)";

constexpr const char* kRacecheck = R"(========= COMPUTE-SANITIZER
========= Error: Race reported between Write access at vector_add_race(const float *, const float *, float *, int)+0x90 in kernel.cu:13
=========     and Read access at vector_add_race(const float *, const float *, float *, int)+0xc0 in kernel.cu:15 [248 hazards]
=========
========= RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings)
========= ERROR SUMMARY: 1 error
)";

constexpr const char* kClean = R"(========= COMPUTE-SANITIZER
========= ERROR SUMMARY: 0 errors
)";

TEST(SanitizerOutput, ReadsEachMemcheckReportWithItsKernelLineAndThread) {
  const SanitizerText text = parse_sanitizer_output(kMemcheck);
  EXPECT_TRUE(text.summary);
  EXPECT_EQ(text.errors, 2);
  ASSERT_EQ(text.findings.size(), 2u);
  const SanitizerFinding& f = text.findings[0];
  EXPECT_EQ(f.what, "Invalid __global__ read of size 4 bytes");
  EXPECT_EQ(f.kernel, "vector_add_oob(const float *, const float *, float *, int)+0x1b0");
  EXPECT_EQ(f.location, "kernel.cu:14");
  EXPECT_EQ(f.thread, "(255,0,0) in block (3,0,0)");
  EXPECT_EQ(text.findings[1].thread, "(255,0,0) in block (4,0,0)");
}

TEST(SanitizerOutput, ReadsARacecheckHazard) {
  const SanitizerText text = parse_sanitizer_output(kRacecheck);
  EXPECT_EQ(text.errors, 1);
  ASSERT_EQ(text.findings.size(), 1u);  // the summaries are no findings
  EXPECT_THAT(text.findings[0].what, HasSubstr("Race reported between Write access"));
}

TEST(SanitizerOutput, ACleanRunAndARunThatNeverFinished) {
  const SanitizerText clean = parse_sanitizer_output(kClean);
  EXPECT_TRUE(clean.summary);
  EXPECT_EQ(clean.errors, 0);
  EXPECT_TRUE(clean.findings.empty());
  const SanitizerText cut = parse_sanitizer_output("========= COMPUTE-SANITIZER\nSegmentation fault\n");
  EXPECT_FALSE(cut.summary);
}

// A kernel that sees the tool and exits before solve leaves "0 errors" behind: clean only when
// the check it watched ran to its result.
TEST(SanitizerStatus, ACleanSummaryOfACheckThatDidNotFinishIsAFailure) {
  const SanitizerText clean = parse_sanitizer_output(kClean);
  EXPECT_EQ(sanitizer_status(clean, "memcheck", "").first, "clean");
  const auto [status, detail] = sanitizer_status(clean, "memcheck", "worker exited without writing a result");
  EXPECT_EQ(status, "failed");
  EXPECT_THAT(detail, HasSubstr("without writing a result"));
  SanitizerText found = clean;
  found.errors = 2;
  EXPECT_EQ(sanitizer_status(found, "memcheck", "worker was killed by signal 11").first, "findings");
}

// Captured on the H200 (CUDA 13.0 compute-sanitizer, tests/gpu/kernels/good, 2026-12-01):
// racecheck's clean run has no ERROR SUMMARY, only its own.
TEST(SanitizerOutput, ACleanRacecheckRunEndsWithItsOwnSummary) {
  const SanitizerText text =
      parse_sanitizer_output("========= COMPUTE-SANITIZER\n"
                             "========= RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)\n");
  EXPECT_TRUE(text.summary);
  EXPECT_EQ(text.errors, 0);
  const SanitizerText warned =
      parse_sanitizer_output("========= RACECHECK SUMMARY: 2 hazards displayed (0 errors, 2 warnings)\n");
  EXPECT_EQ(warned.errors, 2);
}

TEST(SanitizerOutput, TheCauseNamesTheToolTheFirstFindingAndWhere) {
  const SanitizerText text = parse_sanitizer_output(kMemcheck);
  std::vector<SanitizerRun> runs = {
      {.tool = "memcheck", .case_name = "N=4099", .status = "findings", .errors = 2, .findings = text.findings},
      {.tool = "racecheck", .case_name = "N=4099", .status = "clean"},
      {.tool = "initcheck", .case_name = "N=4099", .status = "failed", .detail = "initcheck gave no ERROR SUMMARY: killed"}};
  const std::string cause = sanitizer_cause(runs);
  EXPECT_THAT(cause, HasSubstr("memcheck: 2 error(s): Invalid __global__ read of size 4 bytes at vector_add_oob"));
  EXPECT_THAT(cause, HasSubstr("in kernel.cu:14"));
  EXPECT_THAT(cause, HasSubstr("; initcheck: initcheck gave no ERROR SUMMARY"));
  EXPECT_THAT(cause, ::testing::Not(HasSubstr("racecheck")));
  EXPECT_EQ(sanitizer_cause({runs[1]}), "");
  const nlohmann::json doc = sanitizer_runs_to_json(runs);
  EXPECT_EQ(doc[0]["findings"][0]["location"], "kernel.cu:14");
  EXPECT_EQ(doc[2]["status"], "failed");
}

}  // namespace
}  // namespace kopt::verify
