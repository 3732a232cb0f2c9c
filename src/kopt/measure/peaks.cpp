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

std::string fastest_rate_for(const DevicePeaks& peaks, const spec::PrecisionPolicy& precision) {
  std::string fastest;
  double fastest_flops = 0;
  for (const std::string& rate : precision.compute) {
    const auto it = peaks.flops.find(rate);
    if (it == peaks.flops.end() || it->second <= fastest_flops) continue;
    fastest = rate;
    fastest_flops = it->second;
  }
  return fastest;
}

double fastest_flops_for(const DevicePeaks& peaks, const spec::PrecisionPolicy& precision) {
  const std::string rate = fastest_rate_for(peaks, precision);
  return rate.empty() ? 0.0 : peaks.flops.at(rate);
}

double roofline_floor_seconds(const DevicePeaks& peaks, const spec::PrecisionPolicy& precision, double flops,
                              double bytes) {
  const double peak = fastest_flops_for(peaks, precision);
  const double compute = flops > 0 && peak > 0 ? flops / peak : 0;
  const double memory = bytes > 0 && peaks.dram_bytes_per_second > 0 ? bytes / peaks.dram_bytes_per_second : 0;
  return std::max(compute, memory);
}

}  // namespace kopt::measure
