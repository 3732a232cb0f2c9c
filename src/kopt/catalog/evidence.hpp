#pragma once
// What `kopt plan` reasons from: the profile's concepts, the roofline's gaps and budget, and
// the run's history of methods. Read from the run folder's JSON files (profile.json,
// roofline.json, history.json; schemas kopt.profile/1 and kopt.roofline/1) or built from the
// library's own types, so tests can plan from the captured ncu reports directly.

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "kopt/profile/metric_map.hpp"
#include "kopt/roofline/roofline.hpp"
#include "kopt/roofline/roofline_json.hpp"

namespace kopt::catalog {

struct ProfileEvidence {
  bool degraded = false;  // no counters: only roofline facts may be used
  std::string arch;       // "sm_90", or empty
  std::string dtype;      // the kernel's data type in the catalog's words ("fp32"), or empty
  std::map<std::string, std::optional<double>> concepts;  // whole-run values; nullopt = missing
};

// The catalog's name for a spec dtype (data/dtypes.toml): float32 → fp32, float16 → fp16,
// bfloat16 → bf16, float64 → fp64, float8_* → fp8; integer names are the same in both.
std::string catalog_dtype(std::string_view spec_dtype);

// What each utilization is the larger of (roofline.json's "readings"): the plan's sentence
// names which, since a FLOP ratio and an SM throughput are different figures.
struct UtilizationReadings {
  double flop_ratio = 0, sm_throughput = 0;
  double dram_bytes_ratio = 0, memory_throughput = 0;
  bool throughputs_known = false;  // false: a roofline.json written before kopt kept them
};

struct RooflineEvidence {
  std::optional<double> arithmetic_intensity;
  double ridge_point = 0;
  double compute_utilization = 0;
  double memory_utilization = 0;
  roofline::Gaps gaps;
  std::string bound;  // compute | memory | compute_and_memory | latency | small_grid
  bool high_throughput = false;
  bool near_peak = false;
  roofline::AxisBudget budget;
  roofline::RooflineSources sources;  // whether each ceiling was measured or is the datasheet's
  UtilizationReadings readings;
};

struct HistoryEntry {
  std::string id;
  std::string status;  // effective | ineffective | harmful | implementation_failed | tried
  int iteration = 0;
};

// The methods.json field that lets a method already tried be claimed again: what changed
// since (a new implementation, a signature now present). Without it a retry is refused.
inline constexpr const char* kRetryField = "retry";
// history.json's bound on retries: how many times one method may be claimed again in a run.
inline constexpr const char* kRetriesField = "retries_per_method";
inline constexpr int kDefaultRetriesPerMethod = 1;

ProfileEvidence profile_evidence(const std::map<std::string, profile::ResolvedConcept>& concepts, std::string arch);
RooflineEvidence roofline_evidence(const roofline::RooflinePoint& point, const roofline::RooflineSources& sources);

// Parsers of the run folder's files; an input_error names the file and the field.
ProfileEvidence parse_profile_json(const nlohmann::json& document, const std::string& file);
RooflineEvidence parse_roofline_json(const nlohmann::json& document, const std::string& file);
std::vector<HistoryEntry> parse_history_json(const nlohmann::json& document, const std::string& file);
nlohmann::json read_json_file(const std::filesystem::path& path);

}  // namespace kopt::catalog
