#include "kopt/profile/nsight_compute.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>

#include "kopt/core/error.hpp"

namespace kopt::profile {
namespace {

using ::testing::HasSubstr;

bool has_pair(const std::vector<std::string>& words, const std::string& flag, const std::string& value) {
  auto it = std::find(words.begin(), words.end(), flag);
  return it != words.end() && std::next(it) != words.end() && *std::next(it) == value;
}

TEST(NcuCommandPrefix, ProfilesOnlyTheKernelsInsideKoptsRange) {
  const auto words = ncu_command_prefix("/opt/ncu", NcuSettings{}, "/tmp/p.ncu-rep");
  EXPECT_EQ(words.front(), "/opt/ncu");
  EXPECT_TRUE(std::find(words.begin(), words.end(), "--nvtx") != words.end());
  EXPECT_TRUE(has_pair(words, "--nvtx-include", "kopt_solve/"));
  EXPECT_TRUE(has_pair(words, "--set", "full"));
  EXPECT_TRUE(has_pair(words, "--import-source", "yes"));
  EXPECT_TRUE(has_pair(words, "--clock-control", "none"));
  EXPECT_TRUE(has_pair(words, "--cache-control", "all"));
  EXPECT_TRUE(has_pair(words, "--target-processes", "all"));
  EXPECT_TRUE(has_pair(words, "--export", "/tmp/p.ncu-rep"));
}

TEST(NcuCommandPrefix, MetricsAloneWhenNoSetIsNamed) {
  const auto words = ncu_command_prefix(
      "/opt/ncu", {.section_set = "", .clock_control = "base", .metrics = {"a.sum", "b.avg"}}, "/tmp/p.ncu-rep");
  EXPECT_TRUE(std::find(words.begin(), words.end(), "--set") == words.end());
  EXPECT_TRUE(has_pair(words, "--metrics", "a.sum,b.avg"));
  EXPECT_TRUE(has_pair(words, "--clock-control", "base"));
}

class FakeNcu final : public ProcessRunner {
 public:
  ProcessResult result;
  std::vector<std::string> argv;
  ProcessResult run(const ProcessSpec& spec) override {
    argv = spec.argv;
    return result;
  }
};

TEST(NcuVersion, ReadsTheVersionLine) {
  FakeNcu ncu;
  ncu.result = {.started = true,
                .exit_status = 0,
                .out = "NVIDIA (R) Nsight Compute Command Line Profiler\nCopyright (c) 2018-2025 NVIDIA Corporation\n"
                       "Version 2025.3.1.0 (build 36398880) (public-release)\n"};
  EXPECT_EQ(ncu_version(ncu, "/opt/ncu"), "2025.3.1");
  EXPECT_EQ(ncu.argv, (std::vector<std::string>{"/opt/ncu", "--version"}));
}

TEST(NcuVersion, AnNcuThatDoesNotRunIsAnEnvironmentError) {
  FakeNcu ncu;
  ncu.result = {.started = true, .exit_status = 1, .err = "libQt6Core.so.6: cannot open shared object file\n"};
  try {
    ncu_version(ncu, "/opt/ncu");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::environment);
    EXPECT_THAT(e.what(), HasSubstr("libQt6Core"));
  }
}

TEST(NcuFailureCause, NamesTheCounterPermissionAndTheFix) {
  const std::string output =
      "==PROF== Connected to process 4242 (/usr/bin/kopt)\n"
      "==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA GPU Performance Counters "
      "on the target device 0.\n";
  EXPECT_THAT(ncu_failure_cause(output), HasSubstr("NVreg_RestrictProfilingToAdminUsers=0"));
}

TEST(NcuFailureCause, NoKernelInTheRange) {
  EXPECT_THAT(ncu_failure_cause("==WARNING== No kernels were profiled.\n"), HasSubstr("no kernel"));
  EXPECT_EQ(ncu_failure_cause("==PROF== Disconnected from process 1\n"), "");
}

}  // namespace
}  // namespace kopt::profile
