#pragma once
// ncu_top.json: per axis (compute, memory, latency) the K readings of one profiled launch
// that are furthest from good, each with its value, unit and the direction that is bad.
//
// Every ranked reading is a ratio with a 1.0 ceiling (a percentage, or a stall's share of a
// warp's cycles), so one badness scale in [0, 1] holds for all of them: the value itself
// where high is bad, 1 − value where low is bad. Counters and rates (FLOPs, bytes, seconds,
// IPC) have no such ceiling; they are listed as context and never ranked. Axis names are
// strings here: the profile stage comes before the roofline and must not depend on it.

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "kopt/profile/metric_map.hpp"
#include "kopt/profile/ncu_csv.hpp"

namespace kopt::profile {

inline constexpr std::string_view kNcuTopSchema = "kopt.ncu_top/1";
inline constexpr int kDefaultTopK = 5;

struct TopMetric {
  std::string name;    // the concept ("stall_long_scoreboard") or the column for a raw metric
  std::string metric;  // the ncu metric it reads (the numerator for a share)
  double value = 0;    // SI: a ratio, 1.0 = 100 %
  std::string unit;    // "ratio"
  std::string bad;     // "high" | "low"
  double badness = 0;  // in [0, 1]; 1 is as far from good as the reading can be
  std::string source;  // "concept" | "metric"
};

struct ContextMetric {
  std::string name;    // the concept
  std::string axis;    // compute | memory | latency | launch | work
  std::string kind;    // counter | rate | ratio | percent
  double value = 0;    // SI
  std::string unit;    // "FLOP/s", "byte", "s", "inst/cycle", ...
};

struct NcuTop {
  int k = kDefaultTopK;
  std::map<std::string, std::vector<TopMetric>> by_axis;  // "compute", "memory", "latency"; worst first
  std::vector<ContextMetric> context;                     // the concepts that are not ranked, by name
  std::vector<std::string> missing;                       // concepts the report could not give
};

// One rule of data/ncu_top.toml: a raw percentage column whose name starts with `prefix`
// is ranked on `axis`, bad in direction `bad`.
struct TopRule {
  std::string prefix;
  std::string axis;
  BadDirection bad = BadDirection::high;
};

struct TopRules {
  std::vector<TopRule> rules;
  // A column whose name holds one of these ("hit_rate") is never ranked: a per-operation
  // hit rate reads 0 % when the operation never ran (no atomics: 0 % atomic hits), which
  // is no evidence; the map's l1_hit_rate and l2_hit_rate concepts stand for the caches.
  std::vector<std::string> skip_when_containing;

  // The rule with the longest prefix that starts `column`; nullopt when none does or the
  // column is skipped.
  std::optional<TopRule> match(std::string_view column) const;
};

// Parses and validates the rules; throws Error(bad_input) naming the file and the rule.
TopRules parse_top_rules(std::string_view toml_text, std::string_view file_name);

// The same, from data/ncu_top.toml (embedded, or under $KOPT_DATA_DIR).
TopRules load_top_rules();

// `resolved` is resolve_concepts(map, launch). Throws Error(bad_input) when k < 1.
NcuTop rank_top_metrics(const KernelLaunch& launch, const MetricMap& map,
                        const std::map<std::string, ResolvedConcept>& resolved, const TopRules& rules,
                        int k = kDefaultTopK);

// The same with the rules of data/ncu_top.toml.
NcuTop rank_top_metrics(const KernelLaunch& launch, const MetricMap& map,
                        const std::map<std::string, ResolvedConcept>& resolved, int k = kDefaultTopK);

// The badness of a ratio reading in [0, 1]: the value where high is bad, 1 − value where
// low is bad, clamped (an L2 write hit rate can read 100.6 %); 0 for BadDirection::none.
double badness_of(double value, BadDirection bad);

// {"schema":"kopt.ncu_top/1","k":5,"axes":{"compute":[...],"memory":[...],"latency":[...]},
//  "context":[...],"missing":[...]}
nlohmann::json to_json(const NcuTop& top);

}  // namespace kopt::profile
