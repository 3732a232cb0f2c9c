#pragma once
// `kopt doctor --peaks`: this device's ceilings measured once and cached per device (UUID
// and driver), so the roofline holds kernels against what the card really delivers rather
// than against its datasheet. The measuring code (runtime/kopt_peaks.cu) is compiled by nvcc
// against cuBLAS/cuBLASLt and run in a worker like any kernel.

#include <filesystem>
#include <map>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "kopt/measure/peaks.hpp"
#include "kopt/run/device_info.hpp"
#include "kopt/verify/check.hpp"

namespace kopt::measure {

struct MeasuredPeaks {
  DevicePeaks peaks;                            // source: "measured (kopt doctor --peaks, <date>)"
  std::string uuid;
  int driver_api_version = 0;
  std::map<std::string, std::string> failures;  // rate that could not be measured → why
  std::string measured_at;                      // ISO 8601, UTC
  int gemm_size = 0;                            // the square GEMM of the tensor rates
};

// Where the peaks of `device` are cached: <cache>/peaks/<uuid>-driver<version>.json.
std::filesystem::path measured_peaks_path(const std::filesystem::path& cache_dir, const run::DeviceInfo& device);

// The cached measurement for this device and driver; nullopt when there is none.
std::optional<MeasuredPeaks> load_measured_peaks(const std::filesystem::path& cache_dir, const run::DeviceInfo& device);

// Compiles the measuring library, measures in a worker, caches and returns the result.
// Throws an environment Error when the library cannot be built or the worker fails.
MeasuredPeaks measure_peaks(verify::CheckContext& context, const run::DeviceInfo& device);

// The ceilings to use: measured when cached for this device, else the datasheet.
std::optional<DevicePeaks> best_known_peaks(const std::filesystem::path& cache_dir, const run::DeviceInfo& device);

nlohmann::json measured_peaks_to_json(const MeasuredPeaks& peaks);
MeasuredPeaks measured_peaks_from_json(const nlohmann::json& in);

// Worker side: runs the job {"kind":"peaks","library":...,"device":N,"rates":[...],"gemm_size":N}.
nlohmann::json execute_peaks_job(const nlohmann::json& job);

}  // namespace kopt::measure
