#include "kopt/run/kernel_worker_sandbox.hpp"

#include <string>

#include "kopt/core/error.hpp"
#include "kopt/run/device_info.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace kopt::run {

bool job_runs_a_kernel(const json& job) {
  const std::string kind = job.value("kind", "");
  return kind == "check" || kind == "bench";
}

std::vector<fs::path> kernel_worker_writable_folders(const fs::path& result_file, const json& job) {
  std::vector<fs::path> folders{fs::absolute(result_file).parent_path()};
  if (job.contains("dump_dirs")) {
    for (const json& per_case : job.at("dump_dirs"))
      for (const json& dir : per_case) folders.emplace_back(dir.get<std::string>());
  }
  return folders;
}

WriteSandbox confine_kernel_worker(const fs::path& result_file, const json& job) {
  prepare_cuda(job.value("device", 0));
  return confine_writes(kernel_worker_writable_folders(result_file, job));
}

json try_confined_cuda(const fs::path& result_file, const json& job) {
  if (landlock_abi() == 0) return {{"works", false}, {"description", "no Landlock in this Linux kernel"}};
  try {
    const WriteSandbox sandbox = confine_kernel_worker(result_file, job);
    prepare_cuda(job.value("device", 0));  // what a job does next, now inside the sandbox
    return {{"works", sandbox.confined}, {"description", sandbox.description}};
  } catch (const Error& e) {
    return {{"works", false}, {"description", std::string("CUDA does not work with confined writes: ") + e.what()}};
  }
}

}  // namespace kopt::run
