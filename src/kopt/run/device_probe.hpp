#pragma once
// Asks a worker process which GPU it sees: the parent never initializes CUDA itself.

#include <filesystem>

#include <nlohmann/json.hpp>

#include "kopt/core/process.hpp"
#include "kopt/run/device_info.hpp"
#include "kopt/run/worker_launcher.hpp"

namespace kopt::run {

struct DeviceProbe {
  DeviceInfo device;
  // Whether CUDA still works in a worker whose writes are confined (the probe tries), and
  // how it was confined, or why not.
  bool writes_confinable = false;
  std::string sandbox;
};

// Throws an environment Error (exit 3) when there is no usable GPU, with the worker's reason.
DeviceProbe probe_device(ProcessRunner& runner, const WorkerSettings& settings, const std::filesystem::path& work_dir);

// Worker side of the probe job.
nlohmann::json execute_probe_job(const nlohmann::json& job);

// A worker's answer when it could not do its job at all: {"kind": "error", ...}.
nlohmann::json worker_error_result(int exit_code, const std::string& message);
// Rethrows a worker's error answer as the Error it was; does nothing for other results.
void rethrow_worker_error(const nlohmann::json& result);

}  // namespace kopt::run
