#pragma once
// The ceilings a measured time is held against. Until `kopt doctor --peaks` measures them,
// they come from the datasheet table in data/peaks.toml.

#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include "kopt/spec/precision.hpp"

namespace kopt::measure {

struct DevicePeaks {
  std::string name;                      // "NVIDIA H200 SXM"
  std::string source;                    // "datasheet (data/peaks.toml)"
  double dram_bytes_per_second = 0;
  std::map<std::string, double> flops;   // "fp32", "tf32_tensor", "fp16_tensor", ... in FLOP/s
  // The rates measured on this device ("dram" and names of `flops`); every other rate is the
  // datasheet's. A measurement fills only what it reached, so one set of peaks mixes the two.
  std::set<std::string> measured;

  bool is_measured(std::string_view rate) const { return measured.contains(std::string(rate)); }
  std::string_view source_of(std::string_view rate) const { return is_measured(rate) ? "measured" : "datasheet"; }
};

// The first entry of data/peaks.toml whose `match` is in `device_name`; nullopt if none.
std::optional<DevicePeaks> datasheet_peaks(std::string_view device_name);

// The fastest of the rates `precision` allows that this device has a peak for: the roofline's
// compute ceiling, and the floor's, which must never call a legitimate kernel impossible.
// Empty when the peaks have none of them.
std::string fastest_rate_for(const DevicePeaks& peaks, const spec::PrecisionPolicy& precision);

// That rate's peak in FLOP/s; 0 when unknown.
double fastest_flops_for(const DevicePeaks& peaks, const spec::PrecisionPolicy& precision);

// The roofline floor max(flops / peak, bytes / bandwidth), in seconds; 0 when neither term
// is known.
double roofline_floor_seconds(const DevicePeaks& peaks, const spec::PrecisionPolicy& precision, double flops,
                              double bytes);

}  // namespace kopt::measure
