#include "kopt/run/gpu_idle.hpp"

#include <fmt/format.h>

#include <charconv>
#include <chrono>

#include "kopt/core/process_maps.hpp"

namespace kopt::run {

namespace {

std::string_view trimmed(std::string_view text) {
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return {};
  return text.substr(first, text.find_last_not_of(" \t\r\n") - first + 1);
}

std::vector<std::string_view> fields_of(std::string_view line) {
  std::vector<std::string_view> fields;
  for (std::size_t start = 0;;) {
    const std::size_t comma = line.find(',', start);
    fields.push_back(trimmed(line.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start)));
    if (comma == std::string_view::npos) return fields;
    start = comma + 1;
  }
}

template <typename T>
bool parse_number(std::string_view text, T& value) {
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  return error == std::errc() && end == text.data() + text.size();
}

}  // namespace

std::vector<GpuOccupant> parse_compute_apps(std::string_view csv, std::string_view uuid) {
  std::vector<GpuOccupant> occupants;
  for (std::size_t start = 0; start < csv.size();) {
    std::size_t end = csv.find('\n', start);
    if (end == std::string_view::npos) end = csv.size();
    const std::string_view line = trimmed(csv.substr(start, end - start));
    start = end + 1;
    // A process name may hold commas: the uuid and pid come first, the memory last.
    const std::vector<std::string_view> fields = fields_of(line);
    if (fields.size() < 4) continue;
    if (!uuid.empty() && fields.front() != uuid) continue;
    GpuOccupant occupant{.gpu_uuid = std::string(fields.front())};
    if (!parse_number(fields[1], occupant.pid)) continue;
    for (std::size_t i = 2; i + 1 < fields.size(); ++i) {
      if (i > 2) occupant.name += ", ";
      occupant.name += fields[i];
    }
    if (!parse_number(fields.back(), occupant.used_mib)) occupant.used_mib = -1;
    occupants.push_back(std::move(occupant));
  }
  return occupants;
}

GpuIdleCheck query_gpu_contexts(ProcessRunner& runner, int own_pid) {
  const auto smi = find_program("nvidia-smi");
  if (!smi) return {.unavailable = "nvidia-smi is not on PATH"};
  return query_gpu_contexts(runner, *smi, own_pid);
}

GpuIdleCheck query_gpu_contexts(ProcessRunner& runner, const std::filesystem::path& smi, int own_pid) {
  GpuIdleCheck check;
  ProcessSpec spec{.argv = {smi.string(), "--query-compute-apps=gpu_uuid,pid,process_name,used_memory",
                            "--format=csv,noheader,nounits"},
                   .time_limit = std::chrono::seconds(10)};
  const ProcessResult result = runner.run(spec);
  if (!result.started || result.timed_out || result.exit_status != 0) {
    check.unavailable = result.timed_out ? "nvidia-smi did not answer within 10 s"
                                         : fmt::format("nvidia-smi failed: {}", trimmed(result.err.empty() ? result.start_error : result.err));
    return check;
  }
  check.checked = true;
  for (GpuOccupant& occupant : parse_compute_apps(result.out, "")) {
    if (!is_same_or_descendant(occupant.pid, own_pid)) check.others.push_back(std::move(occupant));
  }
  return check;
}

GpuIdleCheck on_gpu(GpuIdleCheck check, std::string_view uuid) {
  if (!uuid.empty()) std::erase_if(check.others, [&](const GpuOccupant& o) { return o.gpu_uuid != uuid; });
  return check;
}

std::string idle_warning(const GpuIdleCheck& check) {
  if (check.others.empty()) return "";
  std::string who;
  for (const GpuOccupant& o : check.others) {
    if (!who.empty()) who += "; ";
    who += o.used_mib >= 0 ? fmt::format("pid {} {} ({} MiB)", o.pid, o.name, o.used_mib) : fmt::format("pid {} {}", o.pid, o.name);
  }
  return fmt::format("the GPU was not kopt's alone when timing began: {} held a context on it; its kernels, if it "
                     "ran any, would have slowed the samples (docs/measurement.md, \"One GPU, one kopt\")",
                     who);
}

nlohmann::json idle_check_to_json(const GpuIdleCheck& check) {
  nlohmann::json others = nlohmann::json::array();
  for (const GpuOccupant& o : check.others) {
    others.push_back({{"pid", o.pid}, {"name", o.name}, {"used_mib", o.used_mib}});
  }
  return {{"checked", check.checked},
          {"unavailable", check.unavailable.empty() ? nlohmann::json(nullptr) : nlohmann::json(check.unavailable)},
          {"other_processes", others}};
}

}  // namespace kopt::run
