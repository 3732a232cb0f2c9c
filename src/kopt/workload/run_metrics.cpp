#include "kopt/workload/run_metrics.hpp"

#include <cmath>
#include <optional>
#include <regex>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "kopt/measure/statistics.hpp"

namespace kopt::workload {
namespace {

using nlohmann::json;

std::vector<std::string_view> lines_last_first(std::string_view output) {
  std::vector<std::string_view> lines;
  std::size_t start = 0;
  while (start < output.size()) {
    std::size_t end = output.find('\n', start);
    if (end == std::string_view::npos) end = output.size();
    lines.push_back(output.substr(start, end - start));
    start = end + 1;
  }
  return {lines.rbegin(), lines.rend()};
}

std::string_view trimmed(std::string_view line) {
  while (!line.empty() && std::isspace(static_cast<unsigned char>(line.front()))) line.remove_prefix(1);
  while (!line.empty() && std::isspace(static_cast<unsigned char>(line.back()))) line.remove_suffix(1);
  return line;
}

// The last line that is a JSON object holding `key`: what a workload prints last wins.
std::optional<json> last_json_value(std::string_view output, const std::string& key) {
  for (std::string_view line : lines_last_first(output)) {
    line = trimmed(line);
    if (!line.starts_with('{')) continue;
    json object = json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (object.is_object() && object.contains(key)) return object.at(key);
  }
  return std::nullopt;
}

std::optional<double> finite(double value) { return std::isfinite(value) ? std::optional(value) : std::nullopt; }

std::optional<double> last_pattern_match(std::string_view output, const std::string& pattern) {
  const std::regex regex(pattern);
  for (std::string_view line : lines_last_first(output)) {
    std::match_results<std::string_view::const_iterator> match;
    if (!std::regex_search(line.begin(), line.end(), match, regex) || match.size() < 2) continue;
    const std::string text = match[1].str();
    char* end = nullptr;
    const double value = std::strtod(text.c_str(), &end);
    if (end != text.c_str() && *end == '\0') return finite(value);
    return std::nullopt;  // the last matching line decides, even when its group is no number
  }
  return std::nullopt;
}

}  // namespace

std::string percentile_name(double percentile) { return fmt::format("p{:g}", percentile); }

std::optional<double> read_metric(std::string_view output, const MetricSource& source) {
  if (!source.pattern.empty()) return last_pattern_match(output, source.pattern);
  std::optional<json> value = last_json_value(output, source.json_key);
  if (!value || !value->is_number()) return std::nullopt;
  return finite(value->get<double>());
}

std::optional<std::vector<double>> read_metric_array(std::string_view output, const MetricSource& source) {
  std::optional<json> value = last_json_value(output, source.json_key);
  if (!value || !value->is_array() || value->empty()) return std::nullopt;
  std::vector<double> numbers;
  for (const json& element : *value) {
    if (!element.is_number() || !std::isfinite(element.get<double>())) return std::nullopt;
    numbers.push_back(element.get<double>());
  }
  return numbers;
}

RunMetrics read_run_metrics(std::string_view output, const WorkloadSpec& spec) {
  RunMetrics metrics;
  auto read = [&](const MetricRule& rule) {
    if (rule.source.json_key.empty() && rule.source.pattern.empty()) return;  // read by another rule
    if (std::optional<double> value = read_metric(output, rule.source)) {
      metrics.values[rule.name] = *value;
    } else {
      metrics.missing.push_back(rule.name);
    }
  };
  read(spec.primary);
  for (const MetricRule& rule : spec.secondaries) read(rule);
  for (const Constraint& constraint : spec.constraints) read(constraint.metric);
  if (spec.tail) {
    if (std::optional<std::vector<double>> samples = read_metric_array(output, spec.tail->source)) {
      for (double p : spec.tail->percentiles) metrics.values[percentile_name(p)] = measure::quantile(*samples, p / 100);
    } else {
      metrics.missing.push_back(spec.tail->source.json_key.empty() ? "the tail" : spec.tail->source.json_key);
    }
  }
  return metrics;
}

}  // namespace kopt::workload
