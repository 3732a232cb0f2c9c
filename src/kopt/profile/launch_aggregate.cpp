#include "kopt/profile/launch_aggregate.hpp"

#include <algorithm>
#include <cmath>

#include "kopt/core/error.hpp"

namespace kopt::profile {
namespace {

constexpr std::string_view kDurationConcept = "duration";

bool has_duration(const LaunchConcepts& launch) { return std::isfinite(launch.duration_s) && launch.duration_s > 0; }

// The launches that cannot contribute to `spec`: its value is missing there, or, for a
// time-weighted concept, the launch's duration is.
std::vector<std::string> launches_lacking(const ConceptSpec& spec, const std::vector<LaunchConcepts>& launches) {
  std::vector<std::string> lacking;
  for (const LaunchConcepts& launch : launches) {
    auto it = launch.concepts.find(spec.name);
    const bool has_value = it != launch.concepts.end() && it->second.value.has_value();
    if (!has_value) {
      lacking.push_back(launch_label(launch));
    } else if (spec.combine == Combine::time_weighted && !has_duration(launch)) {
      lacking.push_back(launch_label(launch) + " (no duration)");
    }
  }
  return lacking;
}

// Σ value·duration ÷ Σ duration; for a rate (work per second) that is total work ÷ total time.
double combine_values(const ConceptSpec& spec, const std::vector<LaunchConcepts>& launches) {
  double sum = 0, weighted = 0, duration = 0, largest = -INFINITY;
  for (const LaunchConcepts& launch : launches) {
    const double value = *launch.concepts.at(spec.name).value;
    sum += value;
    weighted += value * launch.duration_s;
    duration += launch.duration_s;
    largest = std::max(largest, value);
  }
  switch (spec.combine) {
    case Combine::sum: return sum;
    case Combine::max: return largest;
    case Combine::time_weighted: return weighted / duration;
  }
  return sum;
}

}  // namespace

LaunchConcepts launch_concepts(const MetricMap& map, const KernelLaunch& launch) {
  LaunchConcepts result{.kernel_name = launch.kernel_name, .id = launch.id, .grid = launch.grid, .block = launch.block};
  result.concepts = resolve_concepts(map, launch);
  auto duration = result.concepts.find(std::string(kDurationConcept));
  if (duration != result.concepts.end() && duration->second.value) result.duration_s = *duration->second.value;
  return result;
}

std::string launch_label(const LaunchConcepts& launch) { return fmt::format("{} (ID {})", launch.kernel_name, launch.id); }

WholeCall aggregate_launches(const MetricMap& map, const std::vector<LaunchConcepts>& launches) {
  if (launches.empty()) throw input_error("no kernel launches to combine: the profile holds none");
  WholeCall whole;
  for (const LaunchConcepts& launch : launches) whole.duration_s += launch.duration_s;
  for (const ConceptSpec& spec : map.concepts) {
    std::vector<std::string> lacking = launches_lacking(spec, launches);
    if (lacking.empty()) {
      whole.values[spec.name] = combine_values(spec, launches);
    } else {
      whole.values[spec.name] = std::nullopt;
      whole.missing[spec.name] = std::move(lacking);
    }
  }
  return whole;
}

}  // namespace kopt::profile
