#pragma once
// What this machine offers kopt: the GPU (and whether a kernel's worker can be confined on
// it), nvcc, Python, Nsight Compute, the disassembler tools, and optionally the measured
// peaks. `kopt doctor` prints it; the loop writes it into the run's env.json.

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kopt/core/context.hpp"
#include "kopt/run/device_probe.hpp"
#include "kopt/run/worker_launcher.hpp"

namespace kopt::doctor {

// One line of the survey: what was looked for, what was found or why not.
struct Finding {
  std::string what;
  bool ok = false;
  std::string detail;
  nlohmann::json data;
};

struct SurveyOptions {
  run::WorkerSettings worker;
  bool peaks = false;       // measure (or read the cached) DRAM and FLOP ceilings
  bool remeasure = false;   // with peaks: measure again even when cached
  std::string skip_ncu;     // non-empty: the Nsight Compute probe is not tried, for this reason
  // Python's numpy and torch, imported (whether torch sees a GPU: seconds with torch), or read
  // from the packages' metadata (their versions and torch's CUDA build: a fraction of a second).
  // `kopt doctor` imports; the loop's record of its environment (env.json) reads.
  bool import_python_packages = true;
};

struct Survey {
  std::vector<Finding> findings;  // gpu, nvcc, sandbox, python, ncu, cuobjdump, nvdisasm, compute-sanitizer, cpus[, peaks]
  bool can_check = false;         // a GPU and nvcc: kopt can check and time kernels here
  std::optional<run::DeviceInfo> device;
};

// Asks a worker which GPU it sees (run::probe_device); the seam tests replace.
using GpuProbe = std::function<run::DeviceProbe()>;
GpuProbe worker_gpu_probe(Context& context, const run::WorkerSettings& worker);
// The answer kept for this boot when there is one (run/probe_cache.hpp), else a fresh probe:
// for the loop's record of its machine, taken moments after its own checks probed. `kopt
// doctor` asks afresh, since it is what a user runs when the machine has changed.
GpuProbe cached_worker_gpu_probe(Context& context, const run::WorkerSettings& worker);

// Every finding is tried; one that fails says why in its detail and never stops the others.
Survey survey_machine(Context& context, const SurveyOptions& options, const GpuProbe& probe_gpu);

// `kopt doctor --json`'s document (schemas/doctor.schema.json).
nlohmann::json survey_json(const Survey& survey);

}  // namespace kopt::doctor
