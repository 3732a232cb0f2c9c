#include "kopt/run/probe_cache.hpp"

#include <algorithm>
#include <cstdlib>
#include <vector>

#include "kopt/core/error.hpp"
#include "kopt/core/file_queries.hpp"
#include "kopt/core/files.hpp"
#include "kopt/core/hash.hpp"
#include "kopt/run/write_sandbox.hpp"

namespace kopt::run {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

std::string file_or_empty(const fs::path& path) {
  if (!is_file(path)) return "";
  try {
    return read_file(path);
  } catch (const std::exception&) {
    return "";
  }
}

std::string environment_value(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr ? value : "";
}

std::string gpu_information(const fs::path& gpus_dir) {
  std::string all;
  for (const fs::path& gpu : folder_entries(gpus_dir)) all += gpu.filename().string() + "\n" + file_or_empty(gpu / "information");
  return all;
}

std::string executable_identity(const fs::path& executable) {
  return std::string(KOPT_VERSION) + " " + executable.string() + " " + file_stamp(executable);
}

bool still_confinable() { return landlock_abi() > 0; }

}  // namespace

ProbeFacts read_probe_facts(const WorkerSettings& settings) {
  return {.boot_id = file_or_empty("/proc/sys/kernel/random/boot_id"),
          .driver = file_or_empty("/proc/driver/nvidia/version"),
          .gpus = gpu_information("/proc/driver/nvidia/gpus"),
          .visible_devices = environment_value("CUDA_VISIBLE_DEVICES") + ";" + environment_value("CUDA_DEVICE_ORDER"),
          .kopt_build = executable_identity(settings.executable)};
}

fs::path probe_cache_file(const fs::path& cache_dir, const WorkerSettings& settings, const ProbeFacts& facts) {
  if (!facts.usable()) return {};
  const std::string key = ContentHasher()
                              .add("kopt-probe-1")
                              .add(facts.boot_id)
                              .add(facts.driver)
                              .add(facts.gpus)
                              .add(facts.visible_devices)
                              .add(facts.kopt_build)
                              .add(std::to_string(settings.device))
                              .add(settings.launcher.empty() ? "" : settings.launcher.front())
                              .hex();
  return cache_dir / "probe" / (key + ".json");
}

namespace {

std::optional<DeviceProbe> read_cached(const fs::path& file) {
  const std::string text = file_or_empty(file);
  if (text.empty()) return std::nullopt;
  try {
    const json kept = json::parse(text);
    return DeviceProbe{.device = kept.at("device").get<DeviceInfo>(),
                       .writes_confinable = kept.at("writes_confinable").get<bool>(),
                       .sandbox = kept.at("sandbox").get<std::string>()};
  } catch (const std::exception&) {
    return std::nullopt;  // an entry of another build, or damaged: probe again
  }
}

}  // namespace

CachedProbe probe_device_cached(ProcessRunner& runner, const WorkerSettings& settings, const fs::path& work_dir,
                                const fs::path& cache_dir, const ProbeFacts& facts) {
  const fs::path file = probe_cache_file(cache_dir, settings, facts);
  if (!file.empty() && still_confinable()) {
    if (std::optional<DeviceProbe> kept = read_cached(file); kept && kept->writes_confinable) return {*kept, true};
  }
  DeviceProbe probe = probe_device(runner, settings, work_dir);
  if (!file.empty() && probe.writes_confinable) {
    write_file_atomic(file, json{{"device", probe.device},
                                 {"writes_confinable", probe.writes_confinable},
                                 {"sandbox", probe.sandbox}}
                                .dump(2));
  }
  return {probe, false};
}

void forget_probe(const fs::path& cache_dir, const WorkerSettings& settings, const ProbeFacts& facts) {
  const fs::path file = probe_cache_file(cache_dir, settings, facts);
  // Forgetting is best effort: a file that cannot go is probed again next time anyway.
  if (file.empty()) return;
  try {
    remove_file(file);
  } catch (const Error&) {
  }
}

}  // namespace kopt::run
