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
#include "kopt/run/device_probe.hpp"
#include "kopt/verify/reference.hpp"

namespace kopt::cli {
namespace {

struct DoctorConfig {
  CommonOptions common;
};

// One line of the report: what was looked for, what was found or why not.
struct Finding {
  std::string what;
  bool ok = false;
  std::string detail;
  nlohmann::json data;
};

Finding gpu_finding(ProcessRunner& runner, const DoctorConfig& config) {
  try {
    TempDir work("doctor", cache_dir_of(config.common) / "tmp");
    run::DeviceInfo info = run::probe_device(runner, worker_settings_of(config.common), work.path());
    return {"gpu", true,
            fmt::format("{} ({}, {} SMs, {:.0f} MiB L2, {:.0f} GiB)", info.name, info.arch(), info.sm_count,
                        info.l2_bytes / 1048576.0, info.global_memory_bytes / 1073741824.0),
            info};
  } catch (const Error& e) {
    return {"gpu", false, e.what(), nullptr};
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
                  "import importlib.util as u, sys\n"
                  "np = u.find_spec('numpy') is not None\n"
                  "try:\n import torch; t = torch.__version__ + (' cuda' if torch.cuda.is_available() else ' cpu')\n"
                  "except Exception: t = 'absent'\n"
                  "print(sys.version.split()[0], 'numpy' if np else 'no-numpy', t)"},
         .time_limit = std::chrono::seconds(60)});
    if (!result.ok()) return {"python", false, fmt::format("{} {}", python.string(), result.outcome()), nullptr};
    std::string line = result.out.substr(0, result.out.find('\n'));
    return {"python", line.find("no-numpy") == std::string::npos, fmt::format("{} ({})", python.string(), line),
            {{"path", python.string()}, {"versions", line}}};
  } catch (const Error& e) {
    return {"python", false, e.what(), nullptr};
  }
}

Finding tool_finding(const std::string& name) {
  auto path = find_program(name, {"/usr/local/cuda/bin"});
  if (!path) return {name, false, "not found on PATH or in /usr/local/cuda/bin", nullptr};
  return {name, true, path->string(), {{"path", path->string()}}};
}

int run_doctor_command(const DoctorConfig& config) {
  SystemProcessRunner runner;
  std::vector<Finding> findings{gpu_finding(runner, config), nvcc_finding(runner), python_finding(runner),
                                tool_finding("ncu"), tool_finding("cuobjdump"), tool_finding("nvdisasm"),
                                tool_finding("compute-sanitizer")};
  const bool can_check = findings[0].ok && findings[1].ok;
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
            add_common_options(app, config->common);
            return [config] { return run_doctor_command(*config); };
          }};
}

}  // namespace kopt::cli
