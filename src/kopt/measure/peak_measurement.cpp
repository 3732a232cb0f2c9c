#include "kopt/measure/peak_measurement.hpp"

#include <cuda_runtime.h>
#include <dlfcn.h>
#include <fmt/chrono.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <chrono>

#include "kopt/build/compiler.hpp"
#include "kopt/core/clock.hpp"
#include "kopt/core/embedded_files.hpp"
#include "kopt/core/error.hpp"
#include "kopt/core/file_queries.hpp"
#include "kopt/core/files.hpp"
#include "kopt/run/device_buffer.hpp"
#include "kopt/run/device_probe.hpp"
#include "kopt/run/gpu_lock.hpp"
#include "kopt/run/worker_launcher.hpp"

namespace kopt::measure {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr int kGemmSize = 8192;  // large enough that every tensor GEMM runs at its steady rate

// The tensor rates this architecture has (compute capability × 10).
std::vector<std::string> tensor_rates_for(int cc) {
  std::vector<std::string> rates;
  if (cc >= 70) rates.push_back("fp16_tensor");
  if (cc >= 80) rates.insert(rates.end(), {"bf16_tensor", "tf32_tensor"});
  if (cc >= 89) rates.push_back("fp8_tensor");
  return rates;
}


build::BuildArtifact build_peaks_library(verify::CheckContext& context, const run::DeviceInfo& device) {
  const fs::path source = context.cache_dir / "runtime" / "kopt_peaks.cu";
  create_folders(source.parent_path());
  write_file_atomic(source, data_file("runtime/kopt_peaks.cu"));
  const fs::path nvcc = build::find_nvcc();
  build::Compiler compiler(context.runner, nvcc, context.cache_dir);
  // The toolkit's cuBLAS, found again at load time through the rpath.
  const std::string cuda_lib = (nvcc.parent_path().parent_path() / "lib64").string();
  build::BuildOutcome outcome = compiler.compile(
      {.source = source, .arch = device.arch(),
       .kopt_flags = {"-L" + cuda_lib, "-Xlinker", "-rpath=" + cuda_lib, "-lcublasLt", "-lcublas"}});
  if (outcome.ok()) return *outcome.artifact;
  // Without cuBLAS the bandwidth and FP32 rates can still be measured.
  build::BuildOutcome bare = compiler.compile({.source = source, .arch = device.arch(), .defines = {{"KOPT_PEAKS_NO_CUBLAS", "1"}}});
  if (bare.ok()) return *bare.artifact;
  throw environment_error("nvcc could not build kopt's peak measurement: {}", bare.failure->first_error);
}

}  // namespace

namespace {
// The rates a measurement reached: those with a positive value (a failed one is 0 or absent).
std::set<std::string> rates_reached(const DevicePeaks& peaks) {
  std::set<std::string> reached;
  if (peaks.dram_bytes_per_second > 0) reached.insert("dram");
  for (const auto& [rate, value] : peaks.flops) {
    if (value > 0) reached.insert(rate);
  }
  return reached;
}
}  // namespace

fs::path measured_peaks_path(const fs::path& cache_dir, const run::DeviceInfo& device) {
  return cache_dir / "peaks" / fmt::format("{}-driver{}.json", device.uuid.empty() ? device.name : device.uuid,
                                           device.driver_api_version);
}

std::optional<MeasuredPeaks> load_measured_peaks(const fs::path& cache_dir, const run::DeviceInfo& device) {
  const fs::path path = measured_peaks_path(cache_dir, device);
  if (!path_exists(path)) return std::nullopt;
  try {
    return measured_peaks_from_json(json::parse(read_file(path)));
  } catch (const std::exception&) {
    return std::nullopt;  // a damaged cache entry is measured again, never trusted
  }
}

std::optional<DevicePeaks> best_known_peaks(const fs::path& cache_dir, const run::DeviceInfo& device) {
  std::optional<DevicePeaks> datasheet = datasheet_peaks(device.name);
  std::optional<MeasuredPeaks> measured = load_measured_peaks(cache_dir, device);
  if (!measured) return datasheet;
  DevicePeaks best = measured->peaks;
  if (!datasheet) return best;
  // A rate the measurement could not reach (no cuBLAS, say) still has its datasheet ceiling.
  std::vector<std::string> filled;
  if (best.dram_bytes_per_second <= 0) {
    best.dram_bytes_per_second = datasheet->dram_bytes_per_second;
    filled.push_back("dram");
  }
  for (const auto& [rate, value] : datasheet->flops) {
    if (best.is_measured(rate)) continue;
    best.flops[rate] = value;
    filled.push_back(rate);
  }
  if (!filled.empty()) best.source += fmt::format("; datasheet for {}", fmt::join(filled, ", "));
  return best;
}

MeasuredPeaks measure_peaks(verify::CheckContext& context, const run::DeviceInfo& device) {
  const build::BuildArtifact library = build_peaks_library(context, device);
  const int cc = device.cc_major * 10 + device.cc_minor;
  const json job = {{"kind", "peaks"},
                    {"library", library.library.string()},
                    {"device", device.ordinal},
                    {"rates", tensor_rates_for(cc)},
                    {"gemm_size", kGemmSize}};
  TempDir work("peaks", context.cache_dir / "tmp");
  run::WorkerSettings worker = context.worker;
  worker.time_limit = std::chrono::seconds(300);
  const HostLock gpu = run::lock_gpu(nlohmann::json(device), device.ordinal);
  run::WorkerOutcome outcome = run::run_worker(context.runner, worker, job, work.path());
  if (!outcome.result) throw environment_error("measuring the peaks failed: the worker {}", outcome.failure);
  run::rethrow_worker_error(*outcome.result);

  const json& r = *outcome.result;
  MeasuredPeaks measured{.uuid = device.uuid, .driver_api_version = device.driver_api_version,
                         .measured_at = utc_timestamp(), .gemm_size = kGemmSize};
  measured.peaks.name = device.name;
  measured.peaks.source = "measured (kopt doctor --peaks, " + measured.measured_at + ")";
  measured.peaks.dram_bytes_per_second = r.at("dram_bytes_per_second");
  measured.peaks.flops = r.at("flops").get<std::map<std::string, double>>();
  measured.failures = r.at("failures").get<std::map<std::string, std::string>>();
  measured.peaks.measured = rates_reached(measured.peaks);
  const fs::path path = measured_peaks_path(context.cache_dir, device);
  create_folders(path.parent_path());
  write_file_atomic(path, measured_peaks_to_json(measured).dump(2));
  return measured;
}

json measured_peaks_to_json(const MeasuredPeaks& m) {
  return {{"schema", "kopt.peaks/1"},
          {"name", m.peaks.name},
          {"source", m.peaks.source},
          {"uuid", m.uuid},
          {"driver_api_version", m.driver_api_version},
          {"measured_at", m.measured_at},
          {"gemm_size", m.gemm_size},
          {"dram_bytes_per_second", m.peaks.dram_bytes_per_second},
          {"flops", m.peaks.flops},
          {"failures", m.failures}};
}

MeasuredPeaks measured_peaks_from_json(const json& in) {
  MeasuredPeaks m{.uuid = in.at("uuid"), .driver_api_version = in.at("driver_api_version"),
                  .failures = in.at("failures").get<std::map<std::string, std::string>>(),
                  .measured_at = in.at("measured_at"), .gemm_size = in.at("gemm_size")};
  m.peaks.name = in.at("name");
  m.peaks.source = in.at("source");
  m.peaks.dram_bytes_per_second = in.at("dram_bytes_per_second");
  m.peaks.flops = in.at("flops").get<std::map<std::string, double>>();
  m.peaks.measured = rates_reached(m.peaks);
  return m;
}

namespace {

// The measuring library's entry points (runtime/kopt_peaks.cu).
using RateFunction = int (*)(double*, char*, int);
using GemmFunction = int (*)(const char*, int, double*, char*, int);

class PeaksLibrary {
 public:
  explicit PeaksLibrary(const std::string& path) : handle_(dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL)) {
    if (handle_ == nullptr) throw environment_error("cannot load {}: {}", path, dlerror());
  }
  ~PeaksLibrary() { dlclose(handle_); }
  PeaksLibrary(const PeaksLibrary&) = delete;
  PeaksLibrary& operator=(const PeaksLibrary&) = delete;
  template <typename F>
  F find(const char* name) const { return reinterpret_cast<F>(dlsym(handle_, name)); }

 private:
  void* handle_;
};

}  // namespace

json execute_peaks_job(const json& job) {
  run::check_cuda(cudaSetDevice(job.at("device").get<int>()), "cudaSetDevice");
  PeaksLibrary library(job.at("library").get<std::string>());
  json flops = json::object(), failures = json::object();
  char error[512] = "";
  double dram = 0;
  run::report_progress("DRAM bandwidth");
  if (auto f = library.find<RateFunction>("kopt_peak_dram"); f == nullptr || f(&dram, error, sizeof error) != 0) {
    failures["dram"] = f == nullptr ? "missing from the library" : error;
  }
  double rate = 0;
  run::report_progress("FP32 FMA rate");
  if (auto f = library.find<RateFunction>("kopt_peak_fp32"); f != nullptr && f(&rate, error, sizeof error) == 0) {
    flops["fp32"] = rate;
  } else {
    failures["fp32"] = f == nullptr ? "missing from the library" : error;
  }
  auto gemm = library.find<GemmFunction>("kopt_peak_gemm");
  for (const std::string name : job.at("rates")) {
    run::report_progress(name + " GEMM");
    if (gemm == nullptr) {
      failures[name] = "not measured: kopt's peak library was built without cuBLAS";
    } else if (gemm(name.c_str(), job.at("gemm_size"), &rate, error, sizeof error) == 0) {
      flops[name] = rate;
    } else {
      failures[name] = error;
    }
  }
  return {{"kind", "peaks"}, {"dram_bytes_per_second", dram}, {"flops", flops}, {"failures", failures}};
}

}  // namespace kopt::measure
