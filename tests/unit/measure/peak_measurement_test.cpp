#include "kopt/measure/peak_measurement.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "kopt/core/files.hpp"

namespace kopt::measure {
namespace {

using ::testing::HasSubstr;

run::DeviceInfo h200() {
  run::DeviceInfo device;
  device.name = "NVIDIA H200";
  device.uuid = "GPU-1234";
  device.driver_api_version = 13000;
  return device;
}

MeasuredPeaks measured_without_tensors() {
  MeasuredPeaks m{.uuid = "GPU-1234", .driver_api_version = 13000, .failures = {{"bf16_tensor", "no cuBLAS"}},
                  .measured_at = "2026-11-29T12:00:00Z", .gemm_size = 8192};
  m.peaks = {.name = "NVIDIA H200", .source = "measured (kopt doctor --peaks, 2026-11-29T12:00:00Z)",
             .dram_bytes_per_second = 4.3e12, .flops = {{"fp32", 60e12}}};
  return m;
}

TEST(MeasuredPeaks, RoundTripsThroughJson) {
  const MeasuredPeaks m = measured_without_tensors();
  const MeasuredPeaks back = measured_peaks_from_json(measured_peaks_to_json(m));
  EXPECT_EQ(back.uuid, m.uuid);
  EXPECT_EQ(back.peaks.dram_bytes_per_second, m.peaks.dram_bytes_per_second);
  EXPECT_EQ(back.peaks.flops, m.peaks.flops);
  EXPECT_EQ(back.failures, m.failures);
}

TEST(MeasuredPeaks, CachedPerDeviceAndDriver) {
  const auto path = measured_peaks_path("/cache", h200());
  EXPECT_EQ(path, std::filesystem::path("/cache/peaks/GPU-1234-driver13000.json"));
}

TEST(BestKnownPeaks, DatasheetUntilMeasured) {
  TempDir cache("peaks-test");
  std::optional<DevicePeaks> peaks = best_known_peaks(cache.path(), h200());
  ASSERT_TRUE(peaks.has_value());
  EXPECT_THAT(peaks->source, HasSubstr("datasheet"));
  EXPECT_DOUBLE_EQ(peaks->dram_bytes_per_second, 4.8e12);
}

TEST(BestKnownPeaks, MeasuredRatesWinAndTheDatasheetFillsTheRest) {
  TempDir cache("peaks-test");
  const auto path = measured_peaks_path(cache.path(), h200());
  std::filesystem::create_directories(path.parent_path());
  write_file_atomic(path, measured_peaks_to_json(measured_without_tensors()).dump());
  std::optional<DevicePeaks> peaks = best_known_peaks(cache.path(), h200());
  ASSERT_TRUE(peaks.has_value());
  EXPECT_DOUBLE_EQ(peaks->dram_bytes_per_second, 4.3e12);
  EXPECT_DOUBLE_EQ(peaks->flops.at("fp32"), 60e12);
  EXPECT_DOUBLE_EQ(peaks->flops.at("bf16_tensor"), 989.4e12);
  EXPECT_THAT(peaks->source, HasSubstr("measured"));
  EXPECT_THAT(peaks->source, HasSubstr("datasheet for"));
}

TEST(BestKnownPeaks, ADamagedCacheEntryIsNotTrusted) {
  TempDir cache("peaks-test");
  const auto path = measured_peaks_path(cache.path(), h200());
  std::filesystem::create_directories(path.parent_path());
  write_file_atomic(path, "{\"name\": ");
  EXPECT_FALSE(load_measured_peaks(cache.path(), h200()).has_value());
}

}  // namespace
}  // namespace kopt::measure
