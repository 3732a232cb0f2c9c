#include "kopt/profile/ncu_top.hpp"

#include "kopt/profile/data_toml.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <set>

#include "kopt/core/embedded_files.hpp"
#include "kopt/core/error.hpp"

namespace kopt::profile {
namespace {

constexpr std::array kRankedAxes = {"compute", "memory", "latency"};

bool is_ranked_axis(std::string_view axis) {
  return std::find(kRankedAxes.begin(), kRankedAxes.end(), axis) != kRankedAxes.end();
}

// An ncu metric name is counter[.rollup][.submetric...]: "dram__cycles_active.max.pct_of_peak_sustained_elapsed".
struct ColumnName {
  std::string counter;    // "dram__cycles_active"
  std::string rollup;     // "avg" | "sum" | "min" | "max" | "" (none)
  std::string submetric;  // "pct_of_peak_sustained_elapsed", or ""
};

ColumnName split_column(std::string_view column) {
  const size_t dot = column.find('.');
  ColumnName name{.counter = std::string(column.substr(0, dot))};
  if (dot == std::string_view::npos) return name;
  std::string_view rest = column.substr(dot + 1);
  const size_t next = rest.find('.');
  std::string_view first = rest.substr(0, next);
  if (first == "avg" || first == "sum" || first == "min" || first == "max") {
    name.rollup = std::string(first);
    name.submetric = next == std::string_view::npos ? std::string() : std::string(rest.substr(next + 1));
  } else {
    name.submetric = std::string(rest);
  }
  return name;
}

bool is_extreme(const ColumnName& name) { return name.rollup == "min" || name.rollup == "max"; }

// A .min or .max reading is one SM's (or one partition's) extreme; it stands for the whole
// only when the report has no .avg, .sum or plain reading of the same counter and submetric.
bool has_central_sibling(const KernelLaunch& launch, const ColumnName& name) {
  for (const char* rollup : {"avg", "sum", ""}) {
    std::string sibling = name.counter;
    if (*rollup != '\0') sibling += std::string(".") + rollup;
    if (!name.submetric.empty()) sibling += "." + name.submetric;
    const MetricValue* cell = launch.find(sibling);
    if (cell != nullptr && cell->present) return true;
  }
  return false;
}

// A ratio is ranked only when 1.0 is its ceiling: a percentage, or a share (a part divided by
// its whole, like a stall reason over all stall cycles). IPC and waves per SM are ratios too,
// but 1.8 instructions per cycle is not "180 % bad".
bool is_ranked_concept(const ConceptSpec& spec) {
  if (!is_ranked_axis(spec.axis) || spec.bad == BadDirection::none) return false;
  return spec.kind == MetricKind::percent || (spec.kind == MetricKind::ratio && !spec.divide_by.empty());
}

TopMetric concept_reading(const ConceptSpec& spec, double value) {
  return TopMetric{.name = spec.name,
                   .metric = spec.terms.front().metric,
                   .value = value,
                   .unit = "ratio",
                   .bad = std::string(to_string(spec.bad)),
                   .badness = badness_of(value, spec.bad),
                   .source = "concept"};
}

// The counters that ranked concepts read: a raw column of the same counter would list the
// same reading twice (sm__throughput.avg and .sum are one number).
std::set<std::string> counters_of_ranked_concepts(const MetricMap& map) {
  std::set<std::string> counters;
  for (const ConceptSpec& spec : map.concepts) {
    if (!is_ranked_concept(spec)) continue;
    for (const std::string& metric : spec.metric_names()) counters.insert(split_column(metric).counter);
  }
  return counters;
}

struct RawReading {
  std::string axis;
  TopMetric metric;
};

// One reading per counter: its worst percentage among the columns the roll-up rule allows.
std::map<std::string, RawReading> raw_readings(const KernelLaunch& launch, const MetricMap& map,
                                               const TopRules& rules) {
  const std::set<std::string> taken = counters_of_ranked_concepts(map);
  std::map<std::string, RawReading> by_counter;
  for (const auto& [column, cell] : launch.metrics) {
    if (!cell.present || cell.unit != "%") continue;
    const std::optional<TopRule> rule = rules.match(column);
    const ColumnName name = split_column(column);
    if (!rule || taken.contains(name.counter)) continue;
    if (is_extreme(name) && has_central_sibling(launch, name)) continue;
    const double value = cell.value * si_factor(cell.unit);
    TopMetric reading{.name = column,
                      .metric = column,
                      .value = value,
                      .unit = "ratio",
                      .bad = std::string(to_string(rule->bad)),
                      .badness = badness_of(value, rule->bad),
                      .source = "metric"};
    auto it = by_counter.find(name.counter);
    if (it == by_counter.end() || reading.badness > it->second.metric.badness) {
      by_counter[name.counter] = RawReading{rule->axis, std::move(reading)};
    }
  }
  return by_counter;
}

// Worst first; at equal badness a concept before a raw column, then by name, so the order
// never depends on the map's iteration order.
bool worse_first(const TopMetric& a, const TopMetric& b) {
  if (a.badness != b.badness) return a.badness > b.badness;
  if (a.source != b.source) return a.source == "concept";
  return a.name < b.name;
}

BadDirection parse_direction(std::string_view text, std::string_view where) {
  if (text == "high") return BadDirection::high;
  if (text == "low") return BadDirection::low;
  throw input_error("{}: 'bad' must be \"high\" or \"low\", not '{}'", where, text);
}

}  // namespace

std::optional<TopRule> TopRules::match(std::string_view column) const {
  const TopRule* best = nullptr;
  for (const TopRule& rule : rules) {
    if (column.starts_with(rule.prefix) && (best == nullptr || rule.prefix.size() > best->prefix.size())) best = &rule;
  }
  for (const std::string& fragment : skip_when_containing) {
    if (column.find(fragment) != std::string_view::npos) return std::nullopt;
  }
  return best == nullptr ? std::nullopt : std::optional<TopRule>(*best);
}

TopRules parse_top_rules(std::string_view toml_text, std::string_view file_name) {
  const toml::table root = parse_data_toml(toml_text, file_name);
  const toml::array* array = root["ncu_top"]["rules"].as_array();
  if (array == nullptr || array->empty()) throw input_error("{}: [ncu_top] needs a non-empty 'rules' array", file_name);
  TopRules rules;
  for (size_t i = 0; i < array->size(); ++i) {
    const std::string where = fmt::format("{}: [ncu_top] rule {}", file_name, i + 1);
    const toml::table* table = array->get(i)->as_table();
    if (table == nullptr) throw input_error("{}: must be a table", where);
    std::optional<std::string> prefix = (*table)["prefix"].value<std::string>();
    std::optional<std::string> axis = (*table)["axis"].value<std::string>();
    std::optional<std::string> bad = (*table)["bad"].value<std::string>();
    if (!prefix || prefix->empty() || !axis || !bad) throw input_error("{}: needs 'prefix', 'axis' and 'bad'", where);
    if (!is_ranked_axis(*axis)) throw input_error("{}: axis '{}' is not compute, memory or latency", where, *axis);
    rules.rules.push_back({*prefix, *axis, parse_direction(*bad, where)});
  }
  if (const toml::array* fragments = root["ncu_top"]["skip_when_containing"].as_array()) {
    for (const toml::node& node : *fragments) {
      std::optional<std::string> fragment = node.value<std::string>();
      if (!fragment || fragment->empty()) {
        throw input_error("{}: [ncu_top] 'skip_when_containing' must hold non-empty strings", file_name);
      }
      rules.skip_when_containing.push_back(*fragment);
    }
  }
  return rules;
}

TopRules load_top_rules() {
  static const std::string kFile = "data/ncu_top.toml";
  return parse_top_rules(data_file(kFile), kFile);
}

double badness_of(double value, BadDirection bad) {
  double badness = 0;
  if (bad == BadDirection::high) badness = value;
  if (bad == BadDirection::low) badness = 1 - value;
  return std::isfinite(badness) ? std::clamp(badness, 0.0, 1.0) : 0.0;
}

NcuTop rank_top_metrics(const KernelLaunch& launch, const MetricMap& map,
                        const std::map<std::string, ResolvedConcept>& resolved, const TopRules& rules, int k) {
  if (k < 1) throw input_error("ncu_top: K must be at least 1 (got {})", k);
  NcuTop top{.k = k};
  std::map<std::string, std::vector<TopMetric>> candidates;
  for (const char* axis : kRankedAxes) candidates[axis];
  for (const auto& [name, reading] : resolved) {
    const ConceptSpec& spec = *reading.spec;
    if (!reading.value) {
      top.missing.push_back(name);
    } else if (is_ranked_concept(spec)) {
      candidates[spec.axis].push_back(concept_reading(spec, *reading.value));
    } else {
      top.context.push_back({name, spec.axis, std::string(to_string(spec.kind)), *reading.value,
                             concept_unit(spec, launch)});
    }
  }
  for (auto& [counter, raw] : raw_readings(launch, map, rules)) candidates[raw.axis].push_back(std::move(raw.metric));
  for (auto& [axis, list] : candidates) {
    std::ranges::sort(list, worse_first);
    if (list.size() > static_cast<size_t>(k)) list.resize(k);
    top.by_axis[axis] = std::move(list);
  }
  return top;
}

NcuTop rank_top_metrics(const KernelLaunch& launch, const MetricMap& map,
                        const std::map<std::string, ResolvedConcept>& resolved, int k) {
  return rank_top_metrics(launch, map, resolved, load_top_rules(), k);
}

nlohmann::json to_json(const NcuTop& top) {
  nlohmann::json axes = nlohmann::json::object();
  for (const auto& [axis, list] : top.by_axis) {
    nlohmann::json& entries = axes[axis] = nlohmann::json::array();
    for (const TopMetric& m : list) {
      entries.push_back({{"name", m.name}, {"metric", m.metric}, {"value", m.value}, {"unit", m.unit},
                         {"bad", m.bad}, {"badness", m.badness}, {"source", m.source}});
    }
  }
  nlohmann::json context = nlohmann::json::array();
  for (const ContextMetric& c : top.context) {
    context.push_back({{"name", c.name}, {"axis", c.axis}, {"kind", c.kind}, {"value", c.value}, {"unit", c.unit}});
  }
  return {{"schema", kNcuTopSchema}, {"k", top.k}, {"axes", axes}, {"context", context}, {"missing", top.missing}};
}

}  // namespace kopt::profile
