#include "kopt/profile/metric_map.hpp"

#include "kopt/profile/data_toml.hpp"

#include <fmt/ranges.h>

#include <algorithm>
#include <array>

#include "kopt/core/embedded_files.hpp"
#include "kopt/core/error.hpp"

namespace kopt::profile {
namespace {

constexpr std::array kKinds = {std::pair{"percent", MetricKind::percent}, std::pair{"counter", MetricKind::counter},
                               std::pair{"rate", MetricKind::rate}, std::pair{"ratio", MetricKind::ratio}};
constexpr std::array kDirections = {std::pair{"high", BadDirection::high}, std::pair{"low", BadDirection::low},
                                    std::pair{"none", BadDirection::none}};
constexpr std::array kCombines = {std::pair{"time_weighted", Combine::time_weighted}, std::pair{"sum", Combine::sum},
                                  std::pair{"max", Combine::max}};
constexpr std::array kAxes = {"compute", "memory", "latency", "launch", "work"};

// A counter counts work done, which adds up over launches; anything else is a level that
// holds for a launch's duration, so its whole-call value is the time-weighted mean.
Combine default_combine(MetricKind kind) { return kind == MetricKind::counter ? Combine::sum : Combine::time_weighted; }

// Reads one concept table; `where` names the file and entry in every error.
class ConceptReader {
 public:
  ConceptReader(const toml::table& table, std::string where) : table_(table), where_(std::move(where)) {}

  ConceptSpec read(std::string name) {
    reject_unknown_keys();
    ConceptSpec spec{.name = std::move(name)};
    spec.terms = read_terms();
    spec.times = optional_metric("times");
    spec.divide_by = optional_metric("divide_by");
    spec.kind = choice("kind", kKinds);
    spec.bad = choice("bad", kDirections);
    spec.axis = required_string("axis");
    if (std::find(kAxes.begin(), kAxes.end(), spec.axis) == kAxes.end()) {
      fail("axis '{}' is not one of {}", spec.axis, fmt::join(kAxes, ", "));
    }
    spec.combine = table_.contains("combine") ? choice("combine", kCombines) : default_combine(spec.kind);
    spec.value_unit = table_.contains("value_unit") ? required_string("value_unit") : std::string();
    return spec;
  }

 private:
  template <typename... Args>
  [[noreturn]] void fail(fmt::format_string<Args...> format, Args&&... args) const {
    throw input_error("{}: {}", where_, fmt::format(format, std::forward<Args>(args)...));
  }

  // A misspelt key ("divideby") would otherwise be ignored and the concept read wrongly.
  void reject_unknown_keys() const {
    static constexpr std::array kKnown = {"metric", "terms", "times", "divide_by", "kind",
                                          "bad",    "axis",  "combine", "value_unit"};
    for (const auto& [key, value] : table_) {
      if (std::find(kKnown.begin(), kKnown.end(), key.str()) == kKnown.end()) fail("unknown key '{}'", key.str());
    }
  }

  std::string required_string(std::string_view key) const {
    std::optional<std::string> value = table_[key].value<std::string>();
    if (!value || value->empty()) fail("'{}' must be a non-empty string", key);
    return *value;
  }

  std::string optional_metric(std::string_view key) const {
    return table_.contains(key) ? required_string(key) : std::string();
  }

  template <typename T, size_t N>
  T choice(std::string_view key, const std::array<std::pair<const char*, T>, N>& options) const {
    std::string value = required_string(key);
    for (const auto& [name, option] : options) {
      if (value == name) return option;
    }
    fail("'{}' = '{}' is not a known value", key, value);
  }

  std::vector<MetricTerm> read_terms() const {
    const bool has_metric = table_.contains("metric"), has_terms = table_.contains("terms");
    if (has_metric == has_terms) fail("needs exactly one of 'metric' and 'terms'");
    if (has_metric) return {MetricTerm{.metric = required_string("metric")}};
    const toml::array* terms = table_["terms"].as_array();
    if (terms == nullptr || terms->empty()) fail("'terms' must be a non-empty array");
    std::vector<MetricTerm> result;
    for (const toml::node& node : *terms) {
      const toml::table* term = node.as_table();
      std::optional<std::string> metric = term ? (*term)["metric"].value<std::string>() : std::nullopt;
      std::optional<double> weight = term ? (*term)["weight"].value<double>() : std::nullopt;
      if (!metric || metric->empty() || !weight) fail("each term needs 'metric' (string) and 'weight' (number)");
      result.push_back({*metric, *weight});
    }
    return result;
  }

  const toml::table& table_;
  std::string where_;
};

// "2025.3.1" → "2025.3": metric names are fixed per minor release.
std::string major_minor(std::string_view version) {
  size_t first = version.find('.');
  size_t second = first == std::string_view::npos ? first : version.find('.', first + 1);
  return std::string(version.substr(0, second));
}

}  // namespace

std::vector<std::string> ConceptSpec::metric_names() const {
  std::vector<std::string> names;
  for (const MetricTerm& term : terms) names.push_back(term.metric);
  if (!times.empty()) names.push_back(times);
  if (!divide_by.empty()) names.push_back(divide_by);
  return names;
}

const ConceptSpec* MetricMap::find(std::string_view concept_name) const {
  auto it = std::find_if(concepts.begin(), concepts.end(), [&](const ConceptSpec& c) { return c.name == concept_name; });
  return it == concepts.end() ? nullptr : &*it;
}

std::optional<MetricMap> parse_metric_map(std::string_view toml_text, std::string_view file_name,
                                          std::string_view ncu_version, std::string_view arch) {
  const toml::table root = parse_data_toml(toml_text, file_name);
  MetricMap map{.ncu_version = major_minor(ncu_version), .arch = std::string(arch)};
  const toml::table* concepts = root["ncu"][map.ncu_version][map.arch].as_table();
  if (concepts == nullptr) return std::nullopt;
  for (const auto& [key, node] : *concepts) {
    std::string where = fmt::format("{}: [ncu.\"{}\".{}.{}]", file_name, map.ncu_version, map.arch, key.str());
    const toml::table* table = node.as_table();
    if (table == nullptr) throw input_error("{}: must be a table", where);
    map.concepts.push_back(ConceptReader(*table, where).read(std::string(key.str())));
  }
  if (map.concepts.empty()) throw input_error("{}: no concepts for ncu {} on {}", file_name, map.ncu_version, arch);
  return map;
}

std::optional<MetricMap> load_metric_map(std::string_view ncu_version, std::string_view arch) {
  static const std::string kFile = "data/metrics.toml";
  return parse_metric_map(data_file(kFile), kFile, ncu_version, arch);
}

double si_factor(std::string_view unit) {
  if (unit == "%") return 0.01;
  if (unit == "ns" || unit == "nsecond") return 1e-9;
  if (unit == "us" || unit == "usecond") return 1e-6;
  if (unit == "ms" || unit == "msecond") return 1e-3;
  return 1;
}

std::map<std::string, ResolvedConcept> resolve_concepts(const MetricMap& map, const KernelLaunch& launch) {
  std::map<std::string, ResolvedConcept> resolved;
  for (const ConceptSpec& spec : map.concepts) {
    ResolvedConcept result{.spec = &spec};
    auto si_value = [&](const std::string& name) -> double {
      const MetricValue* cell = launch.find(name);
      if (cell == nullptr || !cell->present) {
        result.missing.push_back(name);
        return 0;
      }
      return cell->value * si_factor(cell->unit);
    };
    double sum = 0;
    for (const MetricTerm& term : spec.terms) sum += term.weight * si_value(term.metric);
    const double times = spec.times.empty() ? 1.0 : si_value(spec.times);
    const double divisor = spec.divide_by.empty() ? 1.0 : si_value(spec.divide_by);
    if (result.missing.empty() && divisor == 0) result.missing.push_back(spec.divide_by + " (zero)");
    if (result.missing.empty()) result.value = sum * times / divisor;
    resolved.emplace(spec.name, std::move(result));
  }
  return resolved;
}

std::string_view to_string(MetricKind kind) {
  for (const auto& [name, option] : kKinds) {
    if (option == kind) return name;
  }
  return "?";
}

std::string_view to_string(Combine combine) {
  for (const auto& [name, option] : kCombines) {
    if (option == combine) return name;
  }
  return "?";
}

std::string concept_unit(const ConceptSpec& spec, const KernelLaunch& launch) {
  if (!spec.value_unit.empty()) return spec.value_unit;
  if (spec.kind == MetricKind::percent) return "ratio";
  if (spec.terms.size() != 1 || !spec.times.empty() || !spec.divide_by.empty()) return "";
  const MetricValue* cell = launch.find(spec.terms.front().metric);
  if (cell == nullptr) return "";
  return si_unit(cell->unit);
}

std::string si_unit(std::string_view unit) {
  if (unit == "%") return "ratio";
  if (si_factor(unit) != 1) return "s";  // the only other units si_factor converts are times
  return std::string(unit);
}

std::string_view to_string(BadDirection direction) {
  for (const auto& [name, option] : kDirections) {
    if (option == direction) return name;
  }
  return "?";
}

}  // namespace kopt::profile
