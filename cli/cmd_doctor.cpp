// kopt doctor: what this machine offers kopt (GPU, nvcc, Python, Nsight Compute), and how
// to fix what is missing. Exit 3 when kopt cannot check kernels here.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <iostream>

#include "command.hpp"
#include "common_options.hpp"
#include "kopt/build/compiler.hpp"
#include "kopt/core/error.hpp"
#include "kopt/core/files.hpp"
#include "kopt/measure/peak_measurement.hpp"
#include "kopt/profile/ncu_probe.hpp"
#include "kopt/report/roofline_svg.hpp"
#include "kopt/run/device_probe.hpp"
#include "kopt/verify/reference.hpp"

namespace kopt::cli {
namespace {

struct DoctorConfig {
  CommonOptions common;
  bool peaks = false;
  bool remeasure = false;
  bool no_ncu = false;
};

// One line of the report: what was looked for, what was found or why not.
struct Finding {
  std::string what;
  bool ok = false;
  std::string detail;
  nlohmann::json data;
};

// The GPU, and whether a kernel's worker can be confined on it (docs/integrity.md): one probe.
std::pair<Finding, Finding> gpu_findings(ProcessRunner& runner, const DoctorConfig& config) {
  try {
    TempDir work("doctor", cache_dir_of(config.common) / "tmp");
    const run::DeviceProbe probe = run::probe_device(runner, worker_settings_of(config.common), work.path());
    const run::DeviceInfo& info = probe.device;
    return {{"gpu", true,
             fmt::format("{} ({}, {} SMs, {:.0f} MiB L2, {:.0f} GiB)", info.name, info.arch(), info.sm_count,
                         info.l2_bytes / 1048576.0, info.global_memory_bytes / 1073741824.0),
             info},
            {"sandbox", probe.writes_confinable, probe.sandbox, nullptr}};
  } catch (const Error& e) {
    return {{"gpu", false, e.what(), nullptr}, {"sandbox", false, "not tried without a GPU", nullptr}};
  }
}

Finding nvcc_finding(ProcessRunner& runner) {
  try {
    std::filesystem::path nvcc = build::find_nvcc();
    build::Compiler compiler(runner, nvcc, default_cache_dir());
    return {"nvcc", true, fmt::format("{} ({})", nvcc.string(), compiler.nvcc_version()),
            {{"path", nvcc.string()}, {"version", compiler.nvcc_version()}}};
  } catch (const Error& e) {
    return {"nvcc", false, e.what(), nullptr};
  }
}

Finding python_finding(ProcessRunner& runner) {
  try {
    std::filesystem::path python = verify::find_python();
    ProcessResult result = runner.run(
        {.argv = {python.string(), "-c",
                  "import sys\n"
                  "try:\n import numpy; n = 'numpy ' + numpy.__version__\n"
                  "except Exception: n = 'numpy absent'\n"
                  "try:\n import torch; t = 'torch ' + torch.__version__ + (' cuda' if torch.cuda.is_available() else ' cpu')\n"
                  "except Exception: t = 'torch absent'\n"
                  "print('Python ' + sys.version.split()[0], n, t, sep=', ')"},
         .time_limit = std::chrono::seconds(60)});
    if (!result.ok()) return {"python", false, fmt::format("{} {}", python.string(), result.outcome()), nullptr};
    std::string line = result.out.substr(0, result.out.find('\n'));
    return {"python", line.find("numpy absent") == std::string::npos, fmt::format("{} ({})", python.string(), line),
            {{"path", python.string()}, {"versions", line}}};
  } catch (const Error& e) {
    return {"python", false, e.what(), nullptr};
  }
}

// Nsight Compute, tried for real on a tiny kernel: --query-metrics succeeds where counters
// are then refused.
Finding ncu_finding(ProcessRunner& runner, const DoctorConfig& config, const std::optional<run::DeviceInfo>& device) {
  if (!device) return {"ncu", false, "not tried: no GPU", nullptr};
  if (config.no_ncu) return {"ncu", false, "not tried (--no-ncu)", nullptr};
  try {
    verify::CheckContext context{runner, cache_dir_of(config.common), worker_settings_of(config.common)};
    profile::NcuProbe probe = profile::probe_ncu(context, *device);
    std::string detail = probe.found ? fmt::format("{} ({}): {}", probe.path, probe.version, probe.detail) : probe.detail;
    return {"ncu", probe.counters, detail, profile::ncu_probe_to_json(probe)};
  } catch (const Error& e) {
    return {"ncu", false, e.what(), nullptr};
  }
}

std::string rate_line(const std::string& name, double measured, double datasheet, const std::string& unit) {
  const std::string m = measured > 0 ? report::format_rate(measured, unit) : std::string("-");
  const std::string d = datasheet > 0 ? report::format_rate(datasheet, unit) : std::string("-");
  const std::string ratio = measured > 0 && datasheet > 0 ? fmt::format("{:.0f}%", 100 * measured / datasheet) : "";
  return fmt::format("  {:<12} {:>16} {:>16} {:>6}\n", name, m, d, ratio);
}

// Measured peaks (cached per device and driver) beside the datasheet's.
Finding peaks_finding(ProcessRunner& runner, const DoctorConfig& config, const std::optional<run::DeviceInfo>& device) {
  if (!device) return {"peaks", false, "not measured: no GPU", nullptr};
  try {
    verify::CheckContext context{runner, cache_dir_of(config.common), worker_settings_of(config.common)};
    std::optional<measure::MeasuredPeaks> measured = measure::load_measured_peaks(context.cache_dir, *device);
    const bool cached = measured && !config.remeasure;
    if (!cached) measured = measure::measure_peaks(context, *device);
    const std::optional<measure::DevicePeaks> datasheet = measure::datasheet_peaks(device->name);
    nlohmann::json data = {{"measured", measure::measured_peaks_to_json(*measured)},
                           {"cached", cached},
                           {"file", measure::measured_peaks_path(context.cache_dir, *device).string()},
                           {"datasheet", nullptr}};
    std::string table = fmt::format("{} ({})\n  {:<12} {:>16} {:>16} {:>6}\n",
                                    cached ? "cached measurement" : "measured now", measured->measured_at, "rate",
                                    "measured", "datasheet", "ratio");
    table += rate_line("dram", measured->peaks.dram_bytes_per_second, datasheet ? datasheet->dram_bytes_per_second : 0, "B/s");
    std::map<std::string, double> rates = measured->peaks.flops;
    if (datasheet) {
      data["datasheet"] = {{"name", datasheet->name}, {"dram_bytes_per_second", datasheet->dram_bytes_per_second},
                           {"flops", datasheet->flops}};
      for (const auto& [rate, _] : datasheet->flops) rates.emplace(rate, 0.0);
    }
    for (const auto& [rate, value] : rates) {
      double sheet = 0;
      if (datasheet) {
        if (auto it = datasheet->flops.find(rate); it != datasheet->flops.end()) sheet = it->second;
      }
      table += rate_line(rate, value, sheet, "FLOP/s");
    }
    for (const auto& [rate, why] : measured->failures) table += fmt::format("  {}: not measured: {}\n", rate, why);
    return {"peaks", true, table, data};
  } catch (const Error& e) {
    return {"peaks", false, e.what(), nullptr};
  }
}

Finding tool_finding(const std::string& name) {
  auto path = find_program(name, cuda_tool_dirs());
  if (!path) return {name, false, "not found on " + cuda_tool_search_places(), nullptr};
  return {name, true, path->string(), {{"path", path->string()}}};
}

int run_doctor_command(const DoctorConfig& config) {
  SystemProcessRunner runner;
  auto [gpu, sandbox] = gpu_findings(runner, config);
  std::vector<Finding> findings{gpu, nvcc_finding(runner), sandbox};
  const bool can_check = findings[0].ok && findings[1].ok;
  std::optional<run::DeviceInfo> device;
  if (can_check) device = findings[0].data.get<run::DeviceInfo>();
  findings.push_back(python_finding(runner));
  findings.push_back(ncu_finding(runner, config, device));
  for (const char* tool : {"cuobjdump", "nvdisasm", "compute-sanitizer"}) findings.push_back(tool_finding(tool));
  if (config.peaks) findings.push_back(peaks_finding(runner, config, device));
  if (config.common.json) {
    nlohmann::json document = {{"schema_version", 1}, {"kind", "doctor"}, {"can_check", can_check}};
    for (const Finding& f : findings) document[f.what] = {{"ok", f.ok}, {"detail", f.detail}, {"data", f.data}};
    std::cout << document.dump(2) << "\n";
  } else {
    for (const Finding& f : findings) std::cout << fmt::format("{:<18} {:<4} {}\n", f.what, f.ok ? "ok" : "--", f.detail);
    std::cout << (can_check ? "kopt can check and time kernels here\n"
                            : "kopt cannot run kernels here: it needs a GPU and nvcc\n");
  }
  return static_cast<int>(can_check ? ExitCode::ok : ExitCode::environment);
}

}  // namespace

Command doctor_command() {
  return {"doctor", "Show the GPU, compiler, Python and profiler kopt can use here", [](CLI::App& app) {
            auto config = std::make_shared<DoctorConfig>();
            app.add_flag("--peaks", config->peaks,
                         "Measure DRAM bandwidth and FP32/tensor rates once and cache them for this device");
            app.add_flag("--no-ncu", config->no_ncu, "Skip the Nsight Compute probe (it profiles a test kernel)");
            app.add_flag("--remeasure", config->remeasure, "With --peaks: measure again even when cached");
            add_common_options(app, config->common);
            return [config] { return run_doctor_command(*config); };
          }};
}

}  // namespace kopt::cli
