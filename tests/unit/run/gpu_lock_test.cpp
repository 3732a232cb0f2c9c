#include "kopt/run/gpu_lock.hpp"

#include <gtest/gtest.h>

namespace kopt::run {
namespace {

TEST(GpuLock, IsNamedAfterTheUuidElseTheOrdinal) {
  EXPECT_EQ(gpu_lock_name({{"uuid", "GPU-8f2e1c3a-77b1-4c1d-9e0f-0123456789ab"}}, 0),
            "gpu-GPU-8f2e1c3a-77b1-4c1d-9e0f-0123456789ab");
  EXPECT_EQ(gpu_lock_name({{"uuid", ""}}, 1), "gpu-1");
  EXPECT_EQ(gpu_lock_name(nullptr, 2), "gpu-2");
  EXPECT_EQ(gpu_lock_name({{"uuid", "../../etc/x y"}}, 0), "gpu-etcxy");  // no path escapes the folder
}

}  // namespace
}  // namespace kopt::run
