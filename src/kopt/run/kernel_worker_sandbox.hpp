#pragma once
// How `kopt worker` confines a job that runs a kernel (write_sandbox.hpp): which folders it
// may write, CUDA started before the sandbox closes, and the device probe's trial of both.

#include <filesystem>
#include <vector>

#include <nlohmann/json.hpp>

#include "kopt/run/write_sandbox.hpp"

namespace kopt::run {

// Check and bench jobs load a kernel's library; the others run only kopt's code.
bool job_runs_a_kernel(const nlohmann::json& job);

// The folder of the worker's result file, and a check's output dumps.
std::vector<std::filesystem::path> kernel_worker_writable_folders(const std::filesystem::path& result_file,
                                                                  const nlohmann::json& job);

// Starts CUDA on the job's device (the driver opens its files then), then confines writes.
WriteSandbox confine_kernel_worker(const std::filesystem::path& result_file, const nlohmann::json& job);

// The probe's trial of the above, in a process that ends right after: {"works": bool,
// "description": how it was confined, or why it cannot be}. Never throws an Error.
nlohmann::json try_confined_cuda(const std::filesystem::path& result_file, const nlohmann::json& job);

}  // namespace kopt::run
