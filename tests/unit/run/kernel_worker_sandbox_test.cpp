#include "kopt/run/kernel_worker_sandbox.hpp"

#include <gtest/gtest.h>

namespace kopt::run {
namespace {

TEST(KernelWorkerSandbox, OnlyJobsThatLoadAKernelAreConfined) {
  EXPECT_TRUE(job_runs_a_kernel({{"kind", "check"}}));
  EXPECT_TRUE(job_runs_a_kernel({{"kind", "bench"}}));
  EXPECT_FALSE(job_runs_a_kernel({{"kind", "probe"}}));
  EXPECT_FALSE(job_runs_a_kernel({{"kind", "peaks"}}));
  EXPECT_FALSE(job_runs_a_kernel(nlohmann::json::object()));
}

TEST(KernelWorkerSandbox, WritesTheResultsFolderAndEveryDumpFolder) {
  const nlohmann::json job = {{"kind", "check"},
                              {"dump_dirs", {{"/w/outputs/case0/seed0", "/w/outputs/case0/seed1"}, {"/w/outputs/case1/seed0"}}}};
  const auto folders = kernel_worker_writable_folders("/w/check/result.json", job);
  const std::vector<std::filesystem::path> expected{"/w/check", "/w/outputs/case0/seed0", "/w/outputs/case0/seed1",
                                                    "/w/outputs/case1/seed0"};
  EXPECT_EQ(folders, expected);
  EXPECT_EQ(kernel_worker_writable_folders("/w/bench/result.json", {{"kind", "bench"}}),
            std::vector<std::filesystem::path>{"/w/bench"});
}

}  // namespace
}  // namespace kopt::run
