#pragma once
// The raw page of an Nsight Compute report as `ncu --csv --page raw --print-units base`
// prints it: a header row of metric names, a row of their units, then one row per profiled
// kernel launch. ncu's own `==PROF==` / `==WARNING==` lines and the profiled program's
// stdout share the stream, so the parser finds the table among them and keeps every line
// it could not place, rather than guessing what it meant.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kopt::profile {

// One cell of the table. `present` is false for an empty cell (ncu did not collect the
// metric for this launch), for "n/a"/"nan"/"no data", and for text; it never reads as 0.
struct MetricValue {
  double value = 0;
  std::string unit;  // as the units row gives it: "%", "ns", "byte", "" for dimensionless
  bool present = false;
  std::string text;  // the cell as printed, e.g. "25,728,192" or "(256, 1, 1)"
};

struct Dim3 {
  std::int64_t x = 0, y = 0, z = 0;
  bool operator==(const Dim3&) const = default;
};

struct KernelLaunch {
  int id = -1;               // ncu's "ID" column: the launch's index within the report
  std::string kernel_name;   // demangled, as ncu prints it
  Dim3 grid, block;
  std::map<std::string, MetricValue> metrics;  // every column, by its header name

  // The metric's cell, or nullptr when the report has no such column.
  const MetricValue* find(std::string_view name) const;
};

struct NcuReport {
  std::vector<KernelLaunch> launches;      // in report order
  std::vector<std::string> tool_messages;  // ncu's "==PROF==", "==WARNING==", "==ERROR==" lines
  std::vector<std::string> unparsed;       // non-blank lines that are neither of the above
};

NcuReport parse_ncu_raw_csv(std::string_view text);

// A number as ncu prints it with base units: "25,728,192", "0.69", "-3", "1e+06". Thousands
// separators are removed; anything else that is not a finite number gives nullopt.
std::optional<double> parse_ncu_number(std::string_view cell);

// "(256, 1, 1)" → {256, 1, 1}; nullopt for anything else.
std::optional<Dim3> parse_ncu_dim3(std::string_view cell);

}  // namespace kopt::profile
