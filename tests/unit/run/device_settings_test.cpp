#include "kopt/run/device_settings.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace kopt::run {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

using Setting = DeviceSettings::Setting;

TEST(DeviceSettings, NamesEachSettingThatDiffersWithBothValues) {
  const DeviceSettings before = DeviceSettings::of({{"cudaLimitMaxL2FetchGranularity", 64, true},
                                                    {"cudaDeviceSetCacheConfig", 0, true},
                                                    {"cudaSetDeviceFlags", 8, true}});
  const DeviceSettings after = DeviceSettings::of({{"cudaLimitMaxL2FetchGranularity", 32, true},
                                                   {"cudaDeviceSetCacheConfig", 2, true},
                                                   {"cudaSetDeviceFlags", 8, true}});
  EXPECT_THAT(after.changes_since(before),
              ElementsAre("cudaLimitMaxL2FetchGranularity 64 -> 32", "cudaDeviceSetCacheConfig 0 -> 2"));
  EXPECT_THAT(before.changes_since(before), IsEmpty());
}

// A setting CUDA would not report (an older device, a refused query) is compared with nothing.
TEST(DeviceSettings, ASettingNotReportedOnEitherSideIsNotAChange) {
  const DeviceSettings before = DeviceSettings::of({{"cudaLimitDevRuntimeSyncDepth", 0, false}});
  const DeviceSettings after = DeviceSettings::of({{"cudaLimitDevRuntimeSyncDepth", 2, true}});
  EXPECT_THAT(after.changes_since(before), IsEmpty());
  EXPECT_THAT(before.changes_since(after), IsEmpty());
}

}  // namespace
}  // namespace kopt::run
