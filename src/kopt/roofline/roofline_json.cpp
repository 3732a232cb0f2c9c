#include "kopt/roofline/roofline_json.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>

#include "kopt/core/error.hpp"

namespace kopt::roofline {
namespace {

constexpr std::array kBounds = {Bound::compute, Bound::memory, Bound::compute_and_memory, Bound::latency,
                                Bound::small_grid};
constexpr std::array kPeaksSources = {PeaksSource::measured, PeaksSource::datasheet};
constexpr std::array kAchievedSources = {AchievedSource::ncu, AchievedSource::work_formulas};

// The enumerator whose to_string is `text`; throws naming the field otherwise.
template <typename T, size_t N>
T parse_choice(const nlohmann::json& in, std::string_view field, const std::array<T, N>& options) {
  const std::string text = in.get<std::string>();
  for (T option : options) {
    if (to_string(option) == text) return option;
  }
  throw input_error("roofline.json: '{}' = '{}' is not a known value", field, text);
}

nlohmann::json per_axis(double compute, double memory, double latency) {
  return {{"compute", compute}, {"memory", memory}, {"latency", latency}};
}

// What each side's utilization is the larger of, named: "from" says which reading gave it.
nlohmann::json utilization_readings(const RooflinePoint& p) {
  return {{"compute", {{"flop_ratio", p.flop_ratio}, {"sm_throughput", p.sm_throughput},
                       {"from", p.sm_throughput > p.flop_ratio ? "sm_throughput" : "flop_ratio"}}},
          {"memory", {{"dram_bytes_ratio", p.dram_bytes_ratio}, {"memory_throughput", p.memory_throughput},
                      {"from", p.memory_throughput > p.dram_bytes_ratio ? "memory_throughput" : "dram_bytes_ratio"}}}};
}

void read_point(const nlohmann::json& in, RooflinePoint& point) {
  const nlohmann::json& intensity = in.at("arithmetic_intensity");
  point.arithmetic_intensity = intensity.is_null() ? std::nullopt : std::optional<double>(intensity.get<double>());
  point.ridge_point = in.at("ridge_point");
  point.compute_utilization = in.at("compute_utilization");
  point.memory_utilization = in.at("memory_utilization");
  const nlohmann::json& gaps = in.at("gaps");
  point.gaps = Gaps{.compute = gaps.at("compute"), .memory = gaps.at("memory"), .latency = gaps.at("latency")};
  point.bound = parse_choice(in.at("bound"), "bound", kBounds);
  point.high_throughput = in.at("high_throughput");
  point.near_peak = in.at("near_peak");
  // Files written before kopt kept the readings apart: the rates' ratios are recomputed from
  // "achieved" and "peaks" (read_rates); the throughputs stay unknown (0).
  if (in.contains("readings")) {
    const nlohmann::json &compute = in["readings"].at("compute"), &memory = in["readings"].at("memory");
    point.flop_ratio = compute.at("flop_ratio");
    point.sm_throughput = compute.at("sm_throughput");
    point.dram_bytes_ratio = memory.at("dram_bytes_ratio");
    point.memory_throughput = memory.at("memory_throughput");
  }
}

void read_rates(const nlohmann::json& in, RooflineDocument& document) {
  const nlohmann::json &peaks = in.at("peaks"), &achieved = in.at("achieved");
  document.inputs.peak_flop_per_second = peaks.at("flop_per_second");
  document.inputs.peak_bytes_per_second = peaks.at("bytes_per_second");
  // Files written before each ceiling carried its own source have one "source" for both.
  const bool per_rate = peaks.contains("flop_source");
  document.sources.flop_peak = parse_choice(peaks.at(per_rate ? "flop_source" : "source"),
                                            per_rate ? "peaks.flop_source" : "peaks.source", kPeaksSources);
  document.sources.bytes_peak = parse_choice(peaks.at(per_rate ? "bytes_source" : "source"),
                                             per_rate ? "peaks.bytes_source" : "peaks.source", kPeaksSources);
  document.inputs.achieved_flop_per_second = achieved.at("flop_per_second");
  document.inputs.achieved_bytes_per_second = achieved.at("bytes_per_second");
  document.sources.achieved = parse_choice(achieved.at("source"), "achieved.source", kAchievedSources);
  if (!in.contains("readings")) {
    auto ratio = [](double achieved, double peak) { return peak > 0 ? std::clamp(achieved / peak, 0.0, 1.0) : 0.0; };
    const RooflineInputs& r = document.inputs;
    document.point.flop_ratio = ratio(r.achieved_flop_per_second, r.peak_flop_per_second);
    document.point.dram_bytes_ratio = ratio(r.achieved_bytes_per_second, r.peak_bytes_per_second);
  }
}

}  // namespace

nlohmann::json roofline_json(const RooflineInputs& inputs, const RooflinePoint& point, const AxisBudget& budget,
                             bool degraded, std::optional<std::string> reason, const RooflineSources& sources) {
  nlohmann::json out;
  out["schema"] = kRooflineSchema;
  out["degraded"] = degraded;
  out["reason"] = reason ? nlohmann::json(*reason) : nlohmann::json(nullptr);
  out["arithmetic_intensity"] =
      point.arithmetic_intensity ? nlohmann::json(*point.arithmetic_intensity) : nlohmann::json(nullptr);
  out["ridge_point"] = point.ridge_point;
  out["compute_utilization"] = point.compute_utilization;
  out["memory_utilization"] = point.memory_utilization;
  out["readings"] = utilization_readings(point);
  out["gaps"] = per_axis(point.gaps.compute, point.gaps.memory, point.gaps.latency);
  out["bound"] = to_string(point.bound);
  out["high_throughput"] = point.high_throughput;
  out["near_peak"] = point.near_peak;
  out["budget"] = {{"compute", budget.of(Axis::compute)},
                   {"memory", budget.of(Axis::memory)},
                   {"latency", budget.of(Axis::latency)}};
  out["peaks"] = {{"flop_per_second", inputs.peak_flop_per_second},
                  {"flop_source", to_string(sources.flop_peak)},
                  {"bytes_per_second", inputs.peak_bytes_per_second},
                  {"bytes_source", to_string(sources.bytes_peak)}};
  out["achieved"] = {{"flop_per_second", inputs.achieved_flop_per_second},
                     {"bytes_per_second", inputs.achieved_bytes_per_second},
                     {"source", to_string(sources.achieved)}};
  return out;
}

RooflineDocument read_roofline_json(const nlohmann::json& in) {
  RooflineDocument document;
  try {
    const std::string schema = in.at("schema");
    if (schema != kRooflineSchema) throw input_error("roofline.json: schema '{}' is not '{}'", schema, kRooflineSchema);
    document.degraded = in.at("degraded");
    const nlohmann::json& reason = in.at("reason");
    if (!reason.is_null()) document.reason = reason.get<std::string>();
    read_point(in, document.point);
    const nlohmann::json& budget = in.at("budget");
    document.budget.methods = {budget.at("compute").get<int>(), budget.at("memory").get<int>(),
                               budget.at("latency").get<int>()};
    read_rates(in, document);
  } catch (const nlohmann::json::exception& e) {
    throw input_error("roofline.json: {}", e.what());
  }
  return document;
}

void to_json(nlohmann::json& out, const RooflineDocument& d) {
  out = roofline_json(d.inputs, d.point, d.budget, d.degraded, d.reason, d.sources);
}

void from_json(const nlohmann::json& in, RooflineDocument& document) { document = read_roofline_json(in); }

std::string_view to_string(PeaksSource source) {
  return source == PeaksSource::measured ? "measured" : "datasheet";
}

std::string_view to_string(AchievedSource source) {
  return source == AchievedSource::ncu ? "ncu" : "work_formulas";
}

}  // namespace kopt::roofline
