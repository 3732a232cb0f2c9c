#pragma once
// The device probe, kept for the rest of the boot. Every `kopt check` (so every kernel of a
// bench or compare) started a worker to ask which GPU it sees and whether CUDA works with
// confined writes: a CUDA context, 0.3-0.5 s, for an answer that changes only when the
// machine reboots, the driver changes or the GPUs do (docs/measurement.md, "What a check
// costs"). The answer is cached under a key made of exactly those (ProbeFacts), in the cache
// folder that confined workers cannot write, and only when writes were found confinable: a
// machine where kernels' writes are not confined gets a fresh probe every time.

#include <filesystem>
#include <optional>
#include <string>

#include "kopt/core/process.hpp"
#include "kopt/run/device_probe.hpp"
#include "kopt/run/worker_launcher.hpp"

namespace kopt::run {

// What a probe's answer depends on, read without CUDA.
struct ProbeFacts {
  std::string boot_id;          // /proc/sys/kernel/random/boot_id
  std::string driver;           // /proc/driver/nvidia/version
  std::string gpus;             // every /proc/driver/nvidia/gpus/*/information (UUIDs), in order
  std::string visible_devices;  // $CUDA_VISIBLE_DEVICES, $CUDA_DEVICE_ORDER
  std::string kopt_build;       // the worker executable: version, size and modification time

  // Without a boot id or a driver version nothing is cached.
  bool usable() const { return !boot_id.empty() && !driver.empty(); }
};

ProbeFacts read_probe_facts(const WorkerSettings& settings);

// The cache file of a probe of settings.device under `facts`; empty when !facts.usable().
std::filesystem::path probe_cache_file(const std::filesystem::path& cache_dir, const WorkerSettings& settings,
                                       const ProbeFacts& facts);

struct CachedProbe {
  DeviceProbe probe;
  bool from_cache = false;
};

// The cached probe when there is one for these facts (and Landlock is still there), else
// probe_device, cached when its writes were confinable. Throws as probe_device does.
CachedProbe probe_device_cached(ProcessRunner& runner, const WorkerSettings& settings,
                                const std::filesystem::path& work_dir, const std::filesystem::path& cache_dir,
                                const ProbeFacts& facts);

// Drops the cached probe: a worker saw another GPU than the cache said.
void forget_probe(const std::filesystem::path& cache_dir, const WorkerSettings& settings, const ProbeFacts& facts);

}  // namespace kopt::run
