#include "kopt/workload/workload_freeze.hpp"

#include <array>
#include <sstream>

#include <fmt/format.h>

#include "kopt/core/clock.hpp"
#include "kopt/core/error.hpp"
#include "kopt/core/file_queries.hpp"
#include "kopt/core/files.hpp"
#include "kopt/core/hash.hpp"

namespace kopt::workload {
namespace {

using nlohmann::json;

// Read in pieces: test inputs may be larger than any file kopt reads whole.
std::string file_digest(const std::filesystem::path& path) {
  ContentHasher hasher;
  std::array<char, 1 << 20> piece{};
  std::uintmax_t offset = 0;
  for (;;) {
    const std::size_t got = read_file_bytes(path, offset, piece);
    if (got == 0) break;
    hasher.add(std::string_view(piece.data(), got));
    offset += got;
  }
  return hasher.hex();
}

void digest_under(const std::filesystem::path& root, const std::filesystem::path& path, json& out) {
  if (is_folder(path)) {
    for (const std::filesystem::path& entry : folder_entries(path)) digest_under(root, entry, out);
  } else if (is_file(path)) {
    out[std::filesystem::relative(path, root).string()] = file_digest(path);
  }
}

std::vector<std::string> csv_fields(const std::string& line) {
  std::vector<std::string> fields;
  std::istringstream in(line);
  for (std::string field; std::getline(in, field, ',');) {
    const std::size_t first = field.find_first_not_of(' ');
    fields.push_back(first == std::string::npos ? "" : field.substr(first));
  }
  return fields;
}

json gpus_of(ProcessRunner& runner) {
  if (!find_program("nvidia-smi")) return nullptr;
  ProcessSpec query;
  query.argv = {"nvidia-smi", "--query-gpu=name,uuid,driver_version,clocks.sm,clocks.max.sm,clocks.mem,power.limit",
                "--format=csv,noheader"};
  query.time_limit = std::chrono::seconds(20);
  const ProcessResult result = runner.run(query);
  if (!result.ok()) return nullptr;
  json gpus = json::array();
  std::istringstream lines(result.out);
  for (std::string line; std::getline(lines, line);) {
    const std::vector<std::string> f = csv_fields(line);
    if (f.size() < 7) continue;
    gpus.push_back({{"name", f[0]}, {"uuid", f[1]}, {"driver", f[2]}, {"sm_clock", f[3]}, {"max_sm_clock", f[4]},
                    {"memory_clock", f[5]}, {"power_limit", f[6]}});
  }
  return gpus;
}

// The workload's own Python, where its command is one: the versions its pairs depend on.
json python_of(const WorkloadSpec& spec, ProcessRunner& runner) {
  const std::string program = std::filesystem::path(spec.command.front()).filename().string();
  if (!program.starts_with("python")) return nullptr;
  ProcessSpec query;
  query.argv = {spec.command.front(), "-c",
                "import json, sys\n"
                "d = {'python': sys.version.split()[0]}\n"
                "try:\n"
                "    import torch\n"
                "    d.update(torch=torch.__version__, torch_cuda=torch.version.cuda)\n"
                "except Exception:\n"
                "    d.update(torch=None)\n"
                "print(json.dumps(d))\n"};
  query.working_dir = spec.folder;
  query.time_limit = std::chrono::seconds(120);
  const ProcessResult result = runner.run(query);
  if (!result.ok()) return nullptr;
  json said = json::parse(result.out, nullptr, false);
  return said.is_object() ? said : json(nullptr);
}

// The GPUs without what moves between runs (clocks): the identity a session's pairs rely on.
json gpu_identity(const json& gpus) {
  if (!gpus.is_array()) return nullptr;
  json identity = json::array();
  for (const json& gpu : gpus) identity.push_back({{"name", gpu.at("name")}, {"uuid", gpu.at("uuid")}, {"driver", gpu.at("driver")}});
  return identity;
}

}  // namespace

json probe_environment(const WorkloadSpec& spec, ProcessRunner& runner) {
  return {{"gpus", gpus_of(runner)},
          {"python", python_of(spec, runner)},
          {"clocks_policy", "as found (kopt never sets clocks)"},
          {"kopt_version", KOPT_VERSION}};
}

json input_digests(const WorkloadSpec& spec) {
  json digests = json::object();
  for (const std::string& input : spec.inputs) {
    const std::filesystem::path path = spec.folder / input;
    if (!path_exists(path)) throw input_error("{}: input {} does not exist", spec.file.string(), input);
    digest_under(spec.folder, path, digests);
  }
  return digests;
}

json freeze_workload(const WorkloadSpec& spec, const json& environment) {
  return {{"schema", kFreezeSchema},
          {"frozen_at", utc_timestamp()},
          {"workload", spec.name},
          {"spec_file", spec.file.string()},
          {"spec_digest", content_hash(read_file(spec.file))},
          {"command", spec.command},
          {"inputs", input_digests(spec)},
          {"environment", environment}};
}

std::optional<std::string> freeze_difference(const json& frozen, const json& now) {
  if (frozen.value("spec_digest", "") != now.value("spec_digest", "")) {
    return fmt::format("{} changed (its command, metrics, gate or arms)", now.value("spec_file", "workload.toml"));
  }
  const json& before = frozen.at("inputs");
  const json& after = now.at("inputs");
  for (const auto& [path, digest] : after.items()) {
    if (!before.contains(path)) return fmt::format("the test inputs changed: {} is new", path);
    if (before.at(path) != digest) return fmt::format("the test inputs changed: {}", path);
  }
  for (const auto& [path, digest] : before.items()) {
    if (!after.contains(path)) return fmt::format("the test inputs changed: {} is gone", path);
  }
  const json& env_before = frozen.at("environment");
  const json& env_after = now.at("environment");
  if (gpu_identity(env_before.value("gpus", json())) != gpu_identity(env_after.value("gpus", json()))) {
    return "the GPU or its driver changed";
  }
  if (env_before.value("python", json()) != env_after.value("python", json())) return "the Python or torch version changed";
  return std::nullopt;
}

}  // namespace kopt::workload
