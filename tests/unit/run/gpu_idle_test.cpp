#include "kopt/run/gpu_idle.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <unistd.h>

namespace kopt::run {
namespace {

using ::testing::HasSubstr;
using ::testing::IsEmpty;

// As nvidia-smi 580 prints it: uuid, pid, name, MiB; a name may hold a comma.
constexpr std::string_view kApps =
    "GPU-d5186d3a-2601-5eeb-c6aa-b59b83ed0aa6, 4242, /usr/bin/python3, 81234\n"
    "GPU-d5186d3a-2601-5eeb-c6aa-b59b83ed0aa6, 4243, /opt/app, with comma, 512\n"
    "GPU-00000000-1111-2222-3333-444444444444, 99, /usr/bin/other, 100\n";

TEST(ParseComputeApps, ReadsTheProcessesOfOneGpu) {
  const auto apps = parse_compute_apps(kApps, "GPU-d5186d3a-2601-5eeb-c6aa-b59b83ed0aa6");
  ASSERT_EQ(apps.size(), 2u);
  EXPECT_EQ(apps[0].gpu_uuid, "GPU-d5186d3a-2601-5eeb-c6aa-b59b83ed0aa6");
  EXPECT_EQ(apps[0].pid, 4242);
  EXPECT_EQ(apps[0].name, "/usr/bin/python3");
  EXPECT_EQ(apps[0].used_mib, 81234);
  EXPECT_EQ(apps[1].name, "/opt/app, with comma");
  EXPECT_EQ(apps[1].used_mib, 512);
  EXPECT_EQ(parse_compute_apps(kApps, "").size(), 3u);  // no uuid: every GPU's
}

TEST(ParseComputeApps, SkipsLinesItCannotRead) {
  EXPECT_THAT(parse_compute_apps("No running processes found\n\nGPU-x, notapid, a, 1\n", ""), IsEmpty());
  const auto apps = parse_compute_apps("GPU-x, 7, a, [N/A]\n", "GPU-x");
  ASSERT_EQ(apps.size(), 1u);
  EXPECT_EQ(apps[0].used_mib, -1);
}

struct FakeSmi : ProcessRunner {
  ProcessResult result;
  std::vector<std::string> argv;
  ProcessResult run(const ProcessSpec& spec) override {
    argv = spec.argv;
    return result;
  }
};

// kopt itself and its own workers hold contexts too: only other processes are reported.
TEST(CheckGpuIdle, ReportsOtherProcessesButNotKoptsOwn) {
  FakeSmi smi;
  const int self = static_cast<int>(getpid());
  smi.result = {.started = true, .exit_status = 0,
                .out = "GPU-a, " + std::to_string(self) + ", kopt, 500\nGPU-a, 1, /sbin/init-like, 20\nGPU-b, 1, /sbin/init-like, 20\n"};
  const GpuIdleCheck all = query_gpu_contexts(smi, "/usr/bin/nvidia-smi", self);
  EXPECT_EQ(all.others.size(), 2u);  // GPU-a's other process and GPU-b's
  const GpuIdleCheck check = on_gpu(all, "GPU-a");
  EXPECT_EQ(smi.argv.at(1), "--query-compute-apps=gpu_uuid,pid,process_name,used_memory");
  EXPECT_TRUE(check.checked);
  ASSERT_EQ(check.others.size(), 1u);
  EXPECT_EQ(check.others[0].pid, 1);
  EXPECT_THAT(idle_warning(check), HasSubstr("pid 1 /sbin/init-like (20 MiB)"));
  EXPECT_EQ(idle_check_to_json(check).at("other_processes").size(), 1u);
}

TEST(CheckGpuIdle, AnIdleGpuHasNoWarning) {
  FakeSmi smi;
  smi.result = {.started = true, .exit_status = 0, .out = ""};
  const GpuIdleCheck check = on_gpu(query_gpu_contexts(smi, "/usr/bin/nvidia-smi", static_cast<int>(getpid())), "GPU-a");
  EXPECT_TRUE(check.checked);
  EXPECT_TRUE(idle_warning(check).empty());
}

// nvidia-smi failing or missing is said in the JSON, and is no warning: nothing was seen.
TEST(CheckGpuIdle, AFailedQueryIsUncheckedNotAWarning) {
  FakeSmi smi;
  smi.result = {.started = true, .exit_status = 9, .err = "NVIDIA-SMI has failed\n"};
  const GpuIdleCheck check = query_gpu_contexts(smi, "/usr/bin/nvidia-smi", static_cast<int>(getpid()));
  EXPECT_FALSE(check.checked);
  EXPECT_THAT(check.unavailable, HasSubstr("NVIDIA-SMI has failed"));
  EXPECT_TRUE(idle_warning(check).empty());
  EXPECT_EQ(idle_check_to_json(check).at("unavailable"), "nvidia-smi failed: NVIDIA-SMI has failed");
}

}  // namespace
}  // namespace kopt::run
