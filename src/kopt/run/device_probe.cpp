#include "kopt/run/device_probe.hpp"

#include "kopt/core/error.hpp"

namespace kopt::run {
using nlohmann::json;

json worker_error_result(int exit_code, const std::string& message) {
  return {{"kind", "error"}, {"exit_code", exit_code}, {"message", message}};
}

void rethrow_worker_error(const json& result) {
  if (result.value("kind", "") != "error") return;
  throw Error(static_cast<ExitCode>(result.at("exit_code").get<int>()), result.at("message").get<std::string>());
}

json execute_probe_job(const json& job) {
  return {{"kind", "probe"}, {"device", query_device(job.value("device", 0))}, {"device_count", visible_device_count()}};
}

DeviceProbe probe_device(ProcessRunner& runner, const WorkerSettings& settings, const std::filesystem::path& work_dir) {
  WorkerOutcome outcome = run_worker(runner, settings, {{"kind", "probe"}, {"device", settings.device}}, work_dir);
  if (!outcome.result) {
    throw environment_error("cannot query the GPU: {}{}", outcome.failure,
                            outcome.stderr_tail.empty() ? "" : " (" + outcome.stderr_tail + ")");
  }
  rethrow_worker_error(*outcome.result);
  const json sandbox = outcome.result->value("sandbox", json::object());
  return {.device = outcome.result->at("device").get<DeviceInfo>(),
          .writes_confinable = sandbox.value("works", false),
          .sandbox = sandbox.value("description", "not tried")};
}

}  // namespace kopt::run
