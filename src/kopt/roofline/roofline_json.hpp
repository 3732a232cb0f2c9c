#pragma once
// roofline.json, schema "kopt.roofline/1": where one kernel stands on the roofline, why,
// and the axis budget it gives the next iteration. Other code reads it back (the planner,
// the report), so the writer and the reader live together and are tested as a round trip:
//
//   {"schema":"kopt.roofline/1","degraded":false,"reason":null,
//    "arithmetic_intensity":0.25,            (null when no bytes moved)
//    "ridge_point":12.3,"compute_utilization":0.1,"memory_utilization":0.9,
//    "gaps":{"compute":0.9,"memory":0.1,"latency":0.3},
//    "bound":"memory","high_throughput":true,"near_peak":false,
//    "budget":{"compute":0,"memory":1,"latency":1},
//    "peaks":{"flop_per_second":..,"flop_source":"measured|datasheet",
//             "bytes_per_second":..,"bytes_source":"measured|datasheet"},
//    "achieved":{"flop_per_second":..,"bytes_per_second":..,"source":"ncu|work_formulas"}}
//
// SI throughout: FLOP/s, bytes/s, ratios with 1.0 = 100 %.

#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

#include "kopt/roofline/roofline.hpp"

namespace kopt::roofline {

inline constexpr std::string_view kRooflineSchema = "kopt.roofline/1";

enum class PeaksSource { measured, datasheet };     // `kopt doctor --peaks`, or data/peaks.toml
enum class AchievedSource { ncu, work_formulas };   // counters, or the spec's [work] over the timed duration

// Each ceiling has its own source: a measurement may reach DRAM and FP32 but not FP64, whose
// ceiling then stays the datasheet's.
struct RooflineSources {
  PeaksSource flop_peak = PeaksSource::datasheet;
  PeaksSource bytes_peak = PeaksSource::datasheet;
  AchievedSource achieved = AchievedSource::ncu;
};

// roofline.json read back. Only the inputs the file carries (achieved and peak rates) are
// filled; the throughput readings that fed place_on_roofline stay 0.
struct RooflineDocument {
  RooflineInputs inputs;
  RooflinePoint point;
  AxisBudget budget;
  bool degraded = false;              // placed without counters (no ncu), or with a fallback
  std::optional<std::string> reason;  // why it is degraded
  RooflineSources sources;
};

nlohmann::json roofline_json(const RooflineInputs& inputs, const RooflinePoint& point, const AxisBudget& budget,
                             bool degraded, std::optional<std::string> reason, const RooflineSources& sources);

// Throws Error(bad_input) naming the field for a document that is not kopt.roofline/1.
RooflineDocument read_roofline_json(const nlohmann::json& json);

// For nlohmann's get<RooflineDocument>() and json(document).
void to_json(nlohmann::json& out, const RooflineDocument& document);
void from_json(const nlohmann::json& in, RooflineDocument& document);

std::string_view to_string(PeaksSource source);
std::string_view to_string(AchievedSource source);

}  // namespace kopt::roofline
