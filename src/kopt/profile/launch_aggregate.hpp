#pragma once
// One `solve` call may launch several kernels. Each launch is reported on its own, and the
// whole call as one set of concept values combined by each concept's rule (metrics.toml
// `combine`): a level (a percentage, a ratio, a rate) is the duration-weighted mean over the
// launches, work (FLOPs, bytes, seconds) is the sum, a resource (registers, waves) is the
// largest. A concept missing from any launch is missing from the whole, naming the launches:
// a whole made of the launches that happened to have it would describe a different call.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "kopt/profile/metric_map.hpp"
#include "kopt/profile/ncu_csv.hpp"

namespace kopt::profile {

struct LaunchConcepts {
  std::string kernel_name;
  int id = -1;
  Dim3 grid, block;
  double duration_s = 0;  // from the `duration` concept; 0 when the report lacks it
  std::map<std::string, ResolvedConcept> concepts;
};

struct WholeCall {
  double duration_s = 0;  // the launches' durations added
  std::map<std::string, std::optional<double>> values;            // every concept of the map
  std::map<std::string, std::vector<std::string>> missing;        // concept → launches (launch_label) lacking it
};

// Resolves every concept of `map` for one launch and takes its duration.
LaunchConcepts launch_concepts(const MetricMap& map, const KernelLaunch& launch);

// "vector_add_kernel(const float *, const float *, float *, int) (ID 0)"
std::string launch_label(const LaunchConcepts& launch);

// Throws Error(bad_input) for an empty list of launches.
WholeCall aggregate_launches(const MetricMap& map, const std::vector<LaunchConcepts>& launches);

}  // namespace kopt::profile
