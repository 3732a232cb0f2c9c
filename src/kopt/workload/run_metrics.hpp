#pragma once
// A workload run's metrics, read from its standard output as workload.toml says: the primary,
// every secondary and constrained metric, and the run's own tail percentiles. A metric the
// output does not hold is named, so that the run is a recorded failure ("printed no step_ms"),
// never a silent zero.

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "kopt/workload/workload_spec.hpp"

namespace kopt::workload {

struct RunMetrics {
  std::map<std::string, double> values;   // primary, secondaries, constrained metrics, "p99"...
  std::vector<std::string> missing;       // metrics the output did not hold (empty: all read)
};

RunMetrics read_run_metrics(std::string_view output, const WorkloadSpec& spec);

// The value of `source` in `output`, if any (finite numbers only).
std::optional<double> read_metric(std::string_view output, const MetricSource& source);
// The array of numbers at `source.json_key` (tails), if any.
std::optional<std::vector<double>> read_metric_array(std::string_view output, const MetricSource& source);

// "p99", "p99.9": the name a tail percentile's metric goes by.
std::string percentile_name(double percentile);

}  // namespace kopt::workload
