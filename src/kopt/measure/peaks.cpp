#include "kopt/measure/peaks.hpp"

#include "kopt/spec/data_file.hpp"

#include <algorithm>

#include "kopt/core/embedded_files.hpp"
#include "kopt/core/error.hpp"

namespace kopt::measure {

std::optional<DevicePeaks> datasheet_peaks(std::string_view device_name) {
  static const std::string kFile = "data/peaks.toml";
  const toml::table table = spec::load_data_file(kFile);
  const toml::array* devices = table["device"].as_array();
  if (devices == nullptr) return std::nullopt;
  for (const toml::node& node : *devices) {
    const toml::table* entry = node.as_table();
    if (entry == nullptr) continue;
    std::string match = (*entry)["match"].value_or(std::string());
    if (match.empty() || device_name.find(match) == std::string_view::npos) continue;
    DevicePeaks peaks{.name = (*entry)["name"].value_or(std::string(match)), .source = "datasheet (" + kFile + ")"};
    peaks.dram_bytes_per_second = (*entry)["dram_bytes_per_second"].value_or(0.0);
    for (const auto& [key, value] : *entry) {
      if (key.str() == "dram_bytes_per_second") continue;
      if (auto rate = value.value<double>()) peaks.flops[std::string(key.str())] = *rate;
    }
    return peaks;
  }
  return std::nullopt;
}

double fastest_flops_for(const DevicePeaks& peaks, const spec::DType& dtype, bool allow_tf32) {
  std::vector<std::string> units;
  if (dtype.name == "float64") units = {"fp64", "fp64_tensor"};
  else if (dtype.name == "float32" && allow_tf32) units = {"fp32", "tf32_tensor"};
  else if (dtype.name == "float32") units = {"fp32"};
  else if (dtype.name == "float16" || dtype.name == "bfloat16") units = {"fp32", "fp16_tensor", "bf16_tensor"};
  else if (dtype.is_floating()) units = {"fp16_tensor", "fp8_tensor"};
  else units = {"fp32", "int8_tensor"};
  double fastest = 0;
  for (const std::string& unit : units) {
    if (auto it = peaks.flops.find(unit); it != peaks.flops.end()) fastest = std::max(fastest, it->second);
  }
  return fastest;
}

double roofline_floor_seconds(const DevicePeaks& peaks, const spec::DType& dtype, double flops, double bytes,
                              bool allow_tf32) {
  const double peak = fastest_flops_for(peaks, dtype, allow_tf32);
  const double compute = flops > 0 && peak > 0 ? flops / peak : 0;
  const double memory = bytes > 0 && peaks.dram_bytes_per_second > 0 ? bytes / peaks.dram_bytes_per_second : 0;
  return std::max(compute, memory);
}

}  // namespace kopt::measure
