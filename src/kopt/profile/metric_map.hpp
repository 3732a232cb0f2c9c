#pragma once
// The metric map (data/metrics.toml): for one Nsight Compute version and architecture, the
// metric(s) that carry each concept kopt reasons about (SM throughput, DRAM throughput,
// each warp stall reason, achieved FLOPs, ...), and the resolution of those concepts for one
// profiled launch. A concept whose metric the report lacks is *missing*, never zero: a
// planner that read 0 % tensor-pipe use from an absent column would chase the wrong axis.

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kopt/profile/ncu_csv.hpp"

namespace kopt::profile {

enum class MetricKind { percent, counter, rate, ratio };
enum class BadDirection { high, low, none };  // none: a fact (a FLOP count), not a symptom

// How one launch's values combine into the whole `solve` call (launch_aggregate.hpp):
// time_weighted: the duration-weighted mean (percentages, ratios; for a rate, total ÷ total
// duration); sum: work done (FLOPs, bytes, seconds); max: a resource (registers, waves).
enum class Combine { time_weighted, sum, max };

struct MetricTerm {
  std::string metric;
  double weight = 1;
};

// value = (Σ weight·term) × times ÷ divide_by, each metric first converted to SI.
struct ConceptSpec {
  std::string name;               // "dram_throughput", "stall_long_scoreboard"
  std::vector<MetricTerm> terms;  // one term for a plain metric
  std::string times;              // empty: none
  std::string divide_by;          // empty: none
  MetricKind kind = MetricKind::ratio;
  BadDirection bad = BadDirection::none;
  std::string axis;               // compute | memory | latency | launch | work
  Combine combine = Combine::time_weighted;  // default by kind: counter → sum, else time_weighted
  std::string value_unit;         // SI unit of the value where no single metric gives it ("FLOP/s")

  std::vector<std::string> metric_names() const;  // every metric it reads
};

struct MetricMap {
  std::string ncu_version;  // "2025.3"
  std::string arch;         // "sm_90"
  std::vector<ConceptSpec> concepts;  // by name (toml++ keeps a table's keys sorted)

  const ConceptSpec* find(std::string_view concept_name) const;
};

// Parses and validates a metric map file; throws Error(bad_input) naming the file and the
// entry for a malformed one. Returns nullopt when the file has no entry for this version
// ("2025.3.1" matches "2025.3") and architecture.
std::optional<MetricMap> parse_metric_map(std::string_view toml_text, std::string_view file_name,
                                          std::string_view ncu_version, std::string_view arch);

// The same, from data/metrics.toml (embedded, or under $KOPT_DATA_DIR).
std::optional<MetricMap> load_metric_map(std::string_view ncu_version, std::string_view arch);

struct ResolvedConcept {
  const ConceptSpec* spec = nullptr;      // into the MetricMap, which must outlive this
  std::optional<double> value;            // SI; nullopt when missing
  std::vector<std::string> missing;       // metrics absent or not collected (or a zero divisor)
};

// Every concept of the map for one launch, by concept name.
std::map<std::string, ResolvedConcept> resolve_concepts(const MetricMap& map, const KernelLaunch& launch);

// The factor that brings a value in `unit` (as ncu prints base units) to SI: "ns" → 1e-9,
// "%" → 0.01 (a ratio, 1.0 = 100 %), anything else → 1.
double si_factor(std::string_view unit);

// The unit a value has after si_factor: "%" → "ratio", "ns" → "s", anything else unchanged.
std::string si_unit(std::string_view unit);

std::string_view to_string(MetricKind kind);
std::string_view to_string(BadDirection direction);
std::string_view to_string(Combine combine);

// The unit of a resolved value: the concept's own, else "ratio" for a percentage, else the
// unit of its single metric in SI ("ns" → "s"). Empty when unknown.
std::string concept_unit(const ConceptSpec& spec, const KernelLaunch& launch);

}  // namespace kopt::profile
