#include "kopt/doctor/survey.hpp"

#include <fmt/format.h>

#include <map>
#include <thread>

#include "kopt/build/compiler.hpp"
#include "kopt/core/error.hpp"
#include "kopt/core/files.hpp"
#include "kopt/core/parallel_for.hpp"
#include "kopt/core/units.hpp"
#include "kopt/measure/peak_measurement.hpp"
#include "kopt/profile/ncu_probe.hpp"
#include "kopt/run/probe_cache.hpp"
#include "kopt/verify/check.hpp"

namespace kopt::doctor {
namespace {

// The GPU, and whether a kernel's worker can be confined on it (docs/integrity.md): one probe.
std::pair<Finding, Finding> gpu_findings(const GpuProbe& probe_gpu) {
  try {
    const run::DeviceProbe probe = probe_gpu();
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

Finding nvcc_finding(Context& context) {
  try {
    build::Compiler compiler(context);
    const std::string nvcc = context.tools.path(Tool::nvcc).string();
    return {"nvcc", true, fmt::format("{} ({})", nvcc, compiler.nvcc_version()),
            {{"path", nvcc}, {"version", compiler.nvcc_version()}}};
  } catch (const Error& e) {
    return {"nvcc", false, e.what(), nullptr};
  }
}

// One line, "Python 3.12.3, numpy 2.1.0, torch 2.11.0+cu130 cuda": numpy and torch imported,
// and whether torch sees a GPU.
constexpr const char* kPythonImportingScript =
    "import sys\n"
    "try:\n import numpy; n = 'numpy ' + numpy.__version__\n"
    "except Exception: n = 'numpy absent'\n"
    "try:\n import torch; t = 'torch ' + torch.__version__ + (' cuda' if torch.cuda.is_available() else ' cpu')\n"
    "except Exception: t = 'torch absent'\n"
    "print('Python ' + sys.version.split()[0], n, t, sep=', ')";

// The same line from the installed packages' metadata, nothing imported: "torch 2.11.0+cu130
// (CUDA 13.0 build)" from torch/version.py, read as text.
constexpr const char* kPythonMetadataScript =
    "import os, re, sys\n"
    "from importlib import metadata, util\n"
    "def version(name):\n"
    " try:\n  return metadata.version(name)\n"
    " except Exception:\n  return None\n"
    "n, t = version('numpy'), version('torch')\n"
    "n = 'numpy ' + n if n else 'numpy absent'\n"
    "if t:\n"
    " try:\n"
    "  text = open(os.path.join(os.path.dirname(util.find_spec('torch').origin), 'version.py')).read()\n"
    "  cuda = re.search(r\"^cuda\\b[^=\\n]*=\\s*'([^']+)'\", text, re.M)\n"
    "  build = 'CUDA ' + cuda.group(1) + ' build' if cuda else 'CPU build'\n"
    " except Exception:\n  build = 'build not read'\n"
    " t = 'torch ' + t + ' (' + build + ')'\n"
    "else:\n t = 'torch absent'\n"
    "print('Python ' + sys.version.split()[0], n, t, sep=', ')";

Finding python_finding(Context& context, bool import_packages) {
  try {
    const std::string python = context.tools.path(Tool::python).string();
    ProcessResult result = context.runner.run(
        {.argv = {python, "-c", import_packages ? kPythonImportingScript : kPythonMetadataScript},
         .time_limit = std::chrono::seconds(60)});
    if (!result.ok()) return {"python", false, fmt::format("{} {}", python, result.outcome()), nullptr};
    std::string line = result.out.substr(0, result.out.find('\n'));
    return {"python", line.find("numpy absent") == std::string::npos, fmt::format("{} ({})", python, line),
            {{"path", python}, {"versions", line}}};
  } catch (const Error& e) {
    return {"python", false, e.what(), nullptr};
  }
}

// Nsight Compute, tried for real on a tiny kernel: --query-metrics succeeds where counters
// are then refused.
Finding ncu_finding(Context& context, const SurveyOptions& options, const std::optional<run::DeviceInfo>& device) {
  if (!device) return {"ncu", false, "not tried: no GPU", nullptr};
  if (!options.skip_ncu.empty()) return {"ncu", false, fmt::format("not tried ({})", options.skip_ncu), nullptr};
  try {
    verify::CheckContext check{context.runner, context.cache_dir, options.worker};
    profile::NcuProbe probe = profile::probe_ncu(check, *device);
    std::string detail = probe.found ? fmt::format("{} ({}): {}", probe.path, probe.version, probe.detail) : probe.detail;
    return {"ncu", probe.counters, detail, profile::ncu_probe_to_json(probe)};
  } catch (const Error& e) {
    return {"ncu", false, e.what(), nullptr};
  }
}

std::string rate_line(const std::string& name, double measured, double datasheet, const std::string& unit) {
  const std::string m = measured > 0 ? format_rate(measured, unit) : std::string("-");
  const std::string d = datasheet > 0 ? format_rate(datasheet, unit) : std::string("-");
  const std::string ratio = measured > 0 && datasheet > 0 ? fmt::format("{:.0f}%", 100 * measured / datasheet) : "";
  return fmt::format("  {:<12} {:>16} {:>16} {:>6}\n", name, m, d, ratio);
}

// The measured rates beside the datasheet's, one line each.
std::string peaks_table(const measure::MeasuredPeaks& measured, bool cached,
                        const std::optional<measure::DevicePeaks>& datasheet) {
  std::string table = fmt::format("{} ({})\n  {:<12} {:>16} {:>16} {:>6}\n", cached ? "cached measurement" : "measured now",
                                  measured.measured_at, "rate", "measured", "datasheet", "ratio");
  table += rate_line("dram", measured.peaks.dram_bytes_per_second, datasheet ? datasheet->dram_bytes_per_second : 0, "B/s");
  std::map<std::string, double> rates = measured.peaks.flops;
  if (datasheet) {
    for (const auto& [rate, _] : datasheet->flops) rates.emplace(rate, 0.0);
  }
  for (const auto& [rate, value] : rates) {
    double sheet = 0;
    if (datasheet) {
      if (auto it = datasheet->flops.find(rate); it != datasheet->flops.end()) sheet = it->second;
    }
    table += rate_line(rate, value, sheet, "FLOP/s");
  }
  for (const auto& [rate, why] : measured.failures) table += fmt::format("  {}: not measured: {}\n", rate, why);
  return table;
}

// Measured peaks (cached per device and driver) beside the datasheet's.
Finding peaks_finding(Context& context, const SurveyOptions& options, const std::optional<run::DeviceInfo>& device) {
  if (!device) return {"peaks", false, "not measured: no GPU", nullptr};
  try {
    verify::CheckContext check{context.runner, context.cache_dir, options.worker};
    std::optional<measure::MeasuredPeaks> measured = measure::load_measured_peaks(check.cache_dir, *device);
    const bool cached = measured && !options.remeasure;
    if (!cached) measured = measure::measure_peaks(check, *device);
    const std::optional<measure::DevicePeaks> datasheet = measure::datasheet_peaks(device->name);
    nlohmann::json data = {{"measured", measure::measured_peaks_to_json(*measured)},
                           {"cached", cached},
                           {"file", measure::measured_peaks_path(check.cache_dir, *device).string()},
                           {"datasheet", nullptr}};
    if (datasheet) {
      data["datasheet"] = {{"name", datasheet->name}, {"dram_bytes_per_second", datasheet->dram_bytes_per_second},
                           {"flops", datasheet->flops}};
    }
    return {"peaks", true, peaks_table(*measured, cached, datasheet), data};
  } catch (const Error& e) {
    return {"peaks", false, e.what(), nullptr};
  }
}

// How wide kopt's compiles and statistics go here (core::usable_cores), beside what the system
// reports: a sandbox or taskset that allows fewer CPUs than the machine has shows up here.
Finding cpus_finding() {
  const unsigned usable = usable_cores();
  const unsigned reported = std::thread::hardware_concurrency();
  return {"cpus", true, fmt::format("{} usable by kopt ({} reported by the system)", usable, reported),
          {{"usable", usable}, {"reported", reported}}};
}

Finding tool_finding(const std::string& name) {
  auto path = find_program(name, cuda_tool_dirs());
  if (!path) return {name, false, "not found on " + cuda_tool_search_places(), nullptr};
  return {name, true, path->string(), {{"path", path->string()}}};
}

}  // namespace

GpuProbe worker_gpu_probe(Context& context, const run::WorkerSettings& worker) {
  return [&context, worker] {
    TempDir work("doctor", context.cache_dir / "tmp");
    return run::probe_device(context.runner, worker, work.path());
  };
}

GpuProbe cached_worker_gpu_probe(Context& context, const run::WorkerSettings& worker) {
  return [&context, worker] {
    TempDir work("doctor", context.cache_dir / "tmp");
    return run::probe_device_cached(context.runner, worker, work.path(), context.cache_dir,
                                    run::read_probe_facts(worker))
        .probe;
  };
}

Survey survey_machine(Context& context, const SurveyOptions& options, const GpuProbe& probe_gpu) {
  auto [gpu, sandbox] = gpu_findings(probe_gpu);
  Survey survey{.findings = {gpu, nvcc_finding(context), sandbox}};
  survey.can_check = survey.findings[0].ok && survey.findings[1].ok;
  if (survey.can_check) survey.device = survey.findings[0].data.get<run::DeviceInfo>();
  survey.findings.push_back(python_finding(context, options.import_python_packages));
  survey.findings.push_back(ncu_finding(context, options, survey.device));
  for (const char* tool : {"cuobjdump", "nvdisasm", "compute-sanitizer"}) survey.findings.push_back(tool_finding(tool));
  survey.findings.push_back(cpus_finding());
  if (options.peaks) survey.findings.push_back(peaks_finding(context, options, survey.device));
  return survey;
}

nlohmann::json survey_json(const Survey& survey) {
  nlohmann::json document = {{"schema", "kopt.doctor/1"}, {"can_check", survey.can_check}};
  for (const Finding& f : survey.findings) document[f.what] = {{"ok", f.ok}, {"detail", f.detail}, {"data", f.data}};
  return document;
}

}  // namespace kopt::doctor
