#include "kopt/catalog/evidence.hpp"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "kopt/core/error.hpp"
#include "kopt/core/files.hpp"

namespace kopt::catalog {
namespace {

using nlohmann::json;

const json& field(const json& object, const char* key, const std::string& file) {
  if (!object.is_object() || !object.contains(key)) throw input_error("{}: no \"{}\"", file, key);
  return object.at(key);
}

double number(const json& object, const char* key, const std::string& file) {
  const json& value = field(object, key, file);
  if (!value.is_number()) throw input_error("{}: \"{}\" must be a number", file, key);
  return value.get<double>();
}

void check_schema(const json& document, std::string_view schema, const std::string& file) {
  const json& value = field(document, "schema", file);
  if (!value.is_string() || value.get<std::string>() != schema) {
    throw input_error("{}: schema must be \"{}\", not {}", file, schema, value.dump());
  }
}

// Each ceiling's source; a file written before they had one each gives "source" for both.
roofline::RooflineSources peaks_sources(const json& peaks, const std::string& file) {
  auto source = [&](const char* key) {
    const json& value = field(peaks, peaks.contains("flop_source") ? key : "source", file + ": peaks");
    if (value == "measured") return roofline::PeaksSource::measured;
    if (value == "datasheet") return roofline::PeaksSource::datasheet;
    throw input_error("{}: peaks: \"{}\" must be \"measured\" or \"datasheet\", not {}", file, key, value.dump());
  };
  return {.flop_peak = source("flop_source"), .bytes_peak = source("bytes_source")};
}

// roofline.json's "readings"; in a file written before them, the two rates' ratios from its
// "achieved" and "peaks", the throughputs unknown.
UtilizationReadings utilization_readings(const json& document, const std::string& file) {
  UtilizationReadings r;
  if (document.contains("readings")) {
    const json &compute = field(document["readings"], "compute", file), &memory = field(document["readings"], "memory", file);
    return {.flop_ratio = number(compute, "flop_ratio", file), .sm_throughput = number(compute, "sm_throughput", file),
            .dram_bytes_ratio = number(memory, "dram_bytes_ratio", file),
            .memory_throughput = number(memory, "memory_throughput", file), .throughputs_known = true};
  }
  if (!document.contains("achieved") || !document.contains("peaks")) return r;
  const json &achieved = document["achieved"], &peaks = document["peaks"];
  auto ratio = [&](const char* name) {
    const double peak = number(peaks, name, file);
    return peak > 0 ? std::clamp(number(achieved, name, file) / peak, 0.0, 1.0) : 0.0;
  };
  r.flop_ratio = ratio("flop_per_second");
  r.dram_bytes_ratio = ratio("bytes_per_second");
  return r;
}

}  // namespace

ProfileEvidence profile_evidence(const std::map<std::string, profile::ResolvedConcept>& concepts, std::string arch) {
  ProfileEvidence evidence{.arch = std::move(arch)};
  for (const auto& [name, resolved] : concepts) evidence.concepts[name] = resolved.value;
  return evidence;
}

RooflineEvidence roofline_evidence(const roofline::RooflinePoint& point, const roofline::RooflineSources& sources) {
  return RooflineEvidence{.arithmetic_intensity = point.arithmetic_intensity,
                          .ridge_point = point.ridge_point,
                          .compute_utilization = point.compute_utilization,
                          .memory_utilization = point.memory_utilization,
                          .gaps = point.gaps,
                          .bound = std::string(roofline::to_string(point.bound)),
                          .high_throughput = point.high_throughput,
                          .near_peak = point.near_peak,
                          .budget = roofline::split_axis_budget(point.gaps),
                          .sources = sources,
                          .readings = {.flop_ratio = point.flop_ratio, .sm_throughput = point.sm_throughput,
                                       .dram_bytes_ratio = point.dram_bytes_ratio,
                                       .memory_throughput = point.memory_throughput, .throughputs_known = true}};
}

std::string catalog_dtype(std::string_view spec_dtype) {
  if (spec_dtype == "float32") return "fp32";
  if (spec_dtype == "float16") return "fp16";
  if (spec_dtype == "bfloat16") return "bf16";
  if (spec_dtype == "float64") return "fp64";
  if (spec_dtype.starts_with("float8")) return "fp8";
  return std::string(spec_dtype);
}

ProfileEvidence parse_profile_json(const json& document, const std::string& file) {
  check_schema(document, "kopt.profile/1", file);
  ProfileEvidence evidence;
  evidence.degraded = document.value("degraded", false);
  if (document.contains("arch") && document["arch"].is_string()) evidence.arch = document["arch"].get<std::string>();
  if (document.contains("dtype") && document["dtype"].is_string()) {
    evidence.dtype = catalog_dtype(document["dtype"].get<std::string>());
  }
  if (evidence.degraded) return evidence;
  const json& concepts = field(field(document, "whole", file), "concepts", file);
  if (!concepts.is_object()) throw input_error("{}: whole.concepts must be an object", file);
  for (const auto& [name, entry] : concepts.items()) {
    const json& value = field(entry, "value", file + ": whole.concepts." + name);
    if (!value.is_null() && !value.is_number()) throw input_error("{}: whole.concepts.{}.value must be a number or null", file, name);
    evidence.concepts[name] = value.is_null() ? std::nullopt : std::optional(value.get<double>());
  }
  return evidence;
}

RooflineEvidence parse_roofline_json(const json& document, const std::string& file) {
  check_schema(document, "kopt.roofline/1", file);
  RooflineEvidence evidence;
  const json& intensity = field(document, "arithmetic_intensity", file);
  if (intensity.is_number()) evidence.arithmetic_intensity = intensity.get<double>();
  evidence.ridge_point = number(document, "ridge_point", file);
  evidence.compute_utilization = number(document, "compute_utilization", file);
  evidence.memory_utilization = number(document, "memory_utilization", file);
  const json& gaps = field(document, "gaps", file);
  evidence.gaps = {.compute = number(gaps, "compute", file),
                   .memory = number(gaps, "memory", file),
                   .latency = number(gaps, "latency", file)};
  evidence.bound = field(document, "bound", file).get<std::string>();
  evidence.high_throughput = field(document, "high_throughput", file).get<bool>();
  evidence.near_peak = field(document, "near_peak", file).get<bool>();
  const json& budget = field(document, "budget", file);
  for (roofline::Axis axis : roofline::kAxes) {
    const std::string name(roofline::to_string(axis));
    evidence.budget.methods[static_cast<size_t>(axis)] = static_cast<int>(number(budget, name.c_str(), file + ": budget"));
  }
  evidence.sources = peaks_sources(field(document, "peaks", file), file);
  evidence.readings = utilization_readings(document, file);
  return evidence;
}

std::vector<HistoryEntry> parse_history_json(const json& document, const std::string& file) {
  std::vector<HistoryEntry> history;
  const json& methods = field(document, "methods", file);
  if (!methods.is_array()) throw input_error("{}: methods must be an array", file);
  for (const json& entry : methods) {
    history.push_back({.id = field(entry, "id", file).get<std::string>(),
                       .status = field(entry, "status", file).get<std::string>(),
                       .iteration = entry.value("iteration", 0)});
    static const std::vector<std::string> kStatuses = {"effective", "ineffective", "harmful", "implementation_failed",
                                                       "tried"};
    if (std::ranges::find(kStatuses, history.back().status) == kStatuses.end()) {
      throw input_error("{}: {}: unknown status \"{}\" (effective, ineffective, harmful, implementation_failed, tried)", file,
                        history.back().id, history.back().status);
    }
  }
  return history;
}

json read_json_file(const std::filesystem::path& path) {
  try {
    return json::parse(read_file(path));
  } catch (const json::parse_error& e) {
    throw input_error("{}: not valid JSON: {}", path.string(), e.what());
  } catch (const json::type_error& e) {
    throw input_error("{}: {}", path.string(), e.what());
  }
}

}  // namespace kopt::catalog
