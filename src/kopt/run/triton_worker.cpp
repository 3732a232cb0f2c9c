#include "kopt/run/triton_worker.hpp"

#include <algorithm>

#include "kopt/core/embedded_files.hpp"
#include "kopt/core/error.hpp"
#include "kopt/core/file_queries.hpp"
#include "kopt/core/files.hpp"
#include "kopt/core/hash.hpp"
#include "kopt/run/problem_codec.hpp"
#include "kopt/spec/python_kernel.hpp"

namespace kopt::run {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

std::string kind_of(const spec::KernelParam& param) {
  if (param.is_pointer) return "pointer";
  return param.dtype->is_floating() ? "real" : "integer";
}

json bridge_entry(const TritonBridge& bridge) {
  const spec::Problem& problem = *bridge.problem;
  json params = json::array();
  for (const spec::KernelParam& param : problem.signature.params)
    params.push_back({{"name", param.name}, {"kind", kind_of(param)}, {"dtype", param.dtype->name}});
  json cases = json::array();
  for (const spec::BoundCase& bound : problem.cases) {
    json scalars = json::array();
    json shapes = json::object();
    for (const spec::BoundArg& arg : bound.args) {
      if (arg.scalar) scalars.push_back(number_to_json(arg.scalar->value));
      else shapes[arg.buffer->name] = arg.buffer->shape;
    }
    // The host finds a call's shapes by its scalars: two cases alike in those must be alike in shapes.
    for (const json& other : cases) {
      if (other["scalars"] == scalars && other["shapes"] != shapes) {
        throw input_error("{}: cases \"{}\" and \"{}\" pass solve the same scalars but differ in buffer shapes; a "
                          "Triton kernel's tensors are shaped from its scalars (docs/triton.md)",
                          problem.spec.kernel.filename().string(), other["case"].get<std::string>(), bound.name);
      }
    }
    cases.push_back({{"case", bound.name}, {"scalars", scalars}, {"shapes", shapes}});
  }
  json defines = json::array();
  for (const auto& [name, value] : bridge.defines) defines.push_back({name, value});
  return {{"library", fs::absolute(bridge.library).string()}, {"kernel", problem.spec.kernel.string()},
          {"entry", problem.signature.entry}, {"params", params}, {"defines", defines}, {"cases", cases}};
}

fs::path host_script(const fs::path& cache_dir) {
  const std::string script = data_file("python/kopt_triton_host.py");
  const fs::path path = cache_dir / "python" / ("kopt_triton_host-" + content_hash(script).substr(0, 12) + ".py");
  if (!path_exists(path)) write_file_atomic(path, script);
  return path;
}

void require_torch_and_triton(ProcessRunner& runner, const fs::path& python) {
  ProcessSpec spec{.argv = {python.string(), "-c", "import torch, triton"}, .time_limit = std::chrono::seconds(120)};
  const ProcessResult result = runner.run(spec);
  if (!result.ok()) {
    throw environment_error("a Triton kernel's worker needs torch and triton importable by python3 ({}: {})",
                            python.string(), result.output_tail(1));
  }
}

}  // namespace

std::vector<TritonBridge> triton_bridges(const std::vector<spec::Problem>& kernels,
                                         const std::vector<fs::path>& libraries,
                                         const std::vector<std::vector<std::pair<std::string, std::string>>>& defines) {
  std::vector<TritonBridge> bridges;
  for (std::size_t i = 0; i < kernels.size() && i < libraries.size(); ++i) {
    if (!spec::is_python_kernel(kernels[i].spec.kernel)) continue;
    TritonBridge bridge{.library = libraries[i], .problem = &kernels[i]};
    if (i < defines.size()) bridge.defines = defines[i];
    bridges.push_back(std::move(bridge));
  }
  return bridges;
}

json triton_plan(const std::vector<TritonBridge>& bridges, int device) {
  json entries = json::array();
  for (const TritonBridge& bridge : bridges) entries.push_back(bridge_entry(bridge));
  return {{"schema", "kopt.triton_plan/1"}, {"device", device}, {"bridges", entries}};
}

std::optional<fs::path> find_worker_library(const fs::path& executable) {
  const fs::path folder = executable.parent_path();
  for (const fs::path& candidate : {folder / "libkopt_worker.so", folder / KOPT_WORKER_FROM_BIN / "libkopt_worker.so"}) {
    if (is_file(candidate)) return candidate.lexically_normal();
  }
  return std::nullopt;
}

WorkerSettings triton_worker_settings(ProcessRunner& runner, const WorkerSettings& base,
                                      const std::function<fs::path()>& find_python, const fs::path& cache_dir,
                                      const std::vector<TritonBridge>& bridges, const fs::path& plan_file) {
  if (bridges.empty()) return base;
  const std::optional<fs::path> library = find_worker_library(base.executable);
  if (!library) {
    throw environment_error("a Triton kernel's worker needs {} (configure kopt with -DKOPT_TRITON_WORKER=ON)",
                            (base.executable.parent_path() / "libkopt_worker.so").string());
  }
  const fs::path python = find_python();
  require_torch_and_triton(runner, python);
  // The device as the worker sees it: the host script hands it to torch inside the worker.
  write_file_atomic(plan_file, triton_plan(bridges, worker_device_view(base.device).ordinal).dump(2));
  WorkerSettings settings = base;
  settings.launcher.insert(settings.launcher.end(),
                           {python.string(), host_script(cache_dir).string(), plan_file.string()});
  settings.executable = *library;
  return settings;
}

std::vector<fs::path> keep_triton_cubins(const fs::path& job_folder, const fs::path& into) {
  std::vector<fs::path> kept;
  for (const fs::path& compiled : folder_entries(job_folder / "triton_cache")) {
    for (const fs::path& file : folder_entries(compiled)) {
      if (file.extension() != ".cubin" || !is_file(file)) continue;
      create_folders(into);
      kept.push_back(into / (compiled.filename().string() + "-" + file.filename().string()));
      move_path(file, kept.back());
    }
  }
  std::ranges::sort(kept);
  return kept;
}

}  // namespace kopt::run
