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
  EXPECT_TRUE(peaks->measured.empty());
  EXPECT_EQ(peaks->source_of("dram"), "datasheet");
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
  // Each rate says where it came from: the two measured ones, and the datasheet for the rest
  // (fp64 and int8 tensor are never measured; bf16 tensor failed here).
  EXPECT_EQ(peaks->measured, (std::set<std::string>{"dram", "fp32"}));
  EXPECT_EQ(peaks->source_of("fp32"), "measured");
  for (const char* rate : {"bf16_tensor", "fp64", "fp64_tensor", "int8_tensor"}) {
    ASSERT_TRUE(peaks->flops.contains(rate)) << rate;
    EXPECT_EQ(peaks->source_of(rate), "datasheet") << rate;
  }
}

TEST(BestKnownPeaks, ARateWhoseMeasurementFailedIsTheDatasheets) {
  // A failed rate may be cached as 0: the datasheet's value replaces it, marked so.
  MeasuredPeaks m = measured_without_tensors();
  m.peaks.flops["bf16_tensor"] = 0;
  m.peaks.dram_bytes_per_second = 0;
  TempDir cache("peaks-test");
  const auto path = measured_peaks_path(cache.path(), h200());
  std::filesystem::create_directories(path.parent_path());
  write_file_atomic(path, measured_peaks_to_json(m).dump());
  std::optional<DevicePeaks> peaks = best_known_peaks(cache.path(), h200());
  ASSERT_TRUE(peaks.has_value());
  EXPECT_DOUBLE_EQ(peaks->flops.at("bf16_tensor"), 989.4e12);
  EXPECT_DOUBLE_EQ(peaks->dram_bytes_per_second, 4.8e12);
  EXPECT_EQ(peaks->measured, (std::set<std::string>{"fp32"}));
  EXPECT_THAT(peaks->source, HasSubstr("datasheet for dram, bf16_tensor"));
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
