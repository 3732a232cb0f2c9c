#pragma once
// The worker of a Triton kernel (docs/triton.md): python3 running python/kopt_triton_host.py,
// which registers kernel.py's solve in the bridge library and then runs kopt's own worker code
// from libkopt_worker.so. A job's protocol, seeds, nonce, sandbox and checks are the .cu ones;
// only the process that hosts them differs.

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "kopt/core/process.hpp"
#include "kopt/run/worker_launcher.hpp"
#include "kopt/spec/problem_spec.hpp"

namespace kopt::run {

// One Triton kernel a job calls: its compiled bridge library, its problem (kernel.py, the
// signature, the cases whose shapes its tensors take) and the -D overrides it was built with,
// which the host sets as kernel.py's module-level variables (docs/triton.md, "Parameters").
struct TritonBridge {
  std::filesystem::path library;
  const spec::Problem* problem = nullptr;
  std::vector<std::pair<std::string, std::string>> defines;
};

// The Triton kernels among `kernels`, with the libraries a job calls them by and each one's
// -D overrides (`defines[i]` for kernels[i]; none where `defines` is shorter).
std::vector<TritonBridge> triton_bridges(const std::vector<spec::Problem>& kernels,
                                         const std::vector<std::filesystem::path>& libraries,
                                         const std::vector<std::vector<std::pair<std::string, std::string>>>& defines = {});

// The host script's plan (schema kopt.triton_plan/1): per bridge, the kernel file, each
// parameter's kind and dtype, its defines, and per case its scalars and each buffer's shape.
nlohmann::json triton_plan(const std::vector<TritonBridge>& bridges, int device);

// libkopt_worker.so for the kopt at `executable`: beside it (a build tree), else in the lib
// folder an install puts it in (KOPT_WORKER_FROM_BIN: ../lib/kopt from bin/); none: neither holds it.
std::optional<std::filesystem::path> find_worker_library(const std::filesystem::path& executable);

// The worker settings for jobs that call `bridges` (none: `base` itself): `base` with python3 and the host script
// (written under `cache_dir`) before libkopt_worker.so (beside `kopt_executable`), and the
// plan written to `plan_file`. `find_python` is asked only when a bridge needs it, so a .cu
// kernel is checked, timed and profiled where no python3 is installed. Throws environment_error,
// in one line, when the library is missing or the python found cannot import torch and triton.
WorkerSettings triton_worker_settings(ProcessRunner& runner, const WorkerSettings& base,
                                      const std::function<std::filesystem::path()>& find_python,
                                      const std::filesystem::path& cache_dir,
                                      const std::vector<TritonBridge>& bridges, const std::filesystem::path& plan_file);

// A Triton kernel's worker compiles its kernels into the Triton cache beside the job's result
// (python/kopt_triton_host.py, confine_caches): `job_folder`/triton_cache/HASH/NAME.cubin. Moves
// every cubin there into `into` as HASH-NAME.cubin, before the job's folder is removed; returns
// them sorted (none where the worker compiled nothing, or the cache is absent).
std::vector<std::filesystem::path> keep_triton_cubins(const std::filesystem::path& job_folder,
                                                      const std::filesystem::path& into);

}  // namespace kopt::run
