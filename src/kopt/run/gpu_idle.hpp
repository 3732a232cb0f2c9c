#pragma once
// Whether the GPU is kopt's alone before it times (issue 22): the host lock (gpu_lock.hpp)
// keeps other kopt processes from timing on it, but not a training job, a notebook, or
// another kopt's check, whose kernels would slow the samples as much as a competitor's hog.
// nvidia-smi lists the processes that hold a compute context on the device; every one that
// is not kopt itself or one of its workers is reported, by bench.json and by a WARN.

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "kopt/core/process.hpp"

namespace kopt::run {

struct GpuOccupant {
  std::string gpu_uuid;
  int pid = 0;
  std::string name;          // as nvidia-smi names it (a path, often)
  std::int64_t used_mib = -1;  // -1: not reported
};

struct GpuIdleCheck {
  bool checked = false;             // nvidia-smi answered
  std::string unavailable;          // why not, when !checked
  std::vector<GpuOccupant> others;  // processes with a context on the GPU, kopt's own left out
};

// The processes nvidia-smi's `--query-compute-apps=gpu_uuid,pid,process_name,used_memory
// --format=csv,noheader,nounits` lists on the GPU `uuid` (every GPU's when uuid is empty).
std::vector<GpuOccupant> parse_compute_apps(std::string_view csv, std::string_view uuid);

// Asks nvidia-smi (through `runner`, within a few seconds) who holds a context on any GPU,
// and leaves out `own_pid` and its descendants (kopt's own workers). The GPU kopt will time
// on need not be known yet: on_gpu picks its processes afterwards.
GpuIdleCheck query_gpu_contexts(ProcessRunner& runner, int own_pid);

// The same with nvidia-smi at `smi` (tests hand a stand-in).
GpuIdleCheck query_gpu_contexts(ProcessRunner& runner, const std::filesystem::path& smi, int own_pid);

// `check` with only the processes on the GPU `uuid` (all of them when uuid is empty).
GpuIdleCheck on_gpu(GpuIdleCheck check, std::string_view uuid);

// The warning naming the other processes (bench prints it after "WARN: "); empty when there
// are none, or nothing could be checked.
std::string idle_warning(const GpuIdleCheck& check);

nlohmann::json idle_check_to_json(const GpuIdleCheck& check);

}  // namespace kopt::run
