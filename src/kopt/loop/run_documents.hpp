#pragma once
// The versions of the documents a run folder holds, in one scheme: each carries
// "schema": "kopt.<kind>/<version>" (state.json, iteration.json, summary.json already did;
// baseline/bench.json, screen.json, finals.json and ablation.json do from kopt.measurement/1
// and kopt.ablation/1 on). Reading one back goes through require_schema: a document written
// before it carried a schema is read as version 1 (old run folders still resume); one of
// another kind or version is refused with one line naming both.

#include <filesystem>
#include <string_view>

#include <nlohmann/json.hpp>

namespace kopt::loop {

inline constexpr std::string_view kMeasurementSchema = "kopt.measurement/1";  // baseline/bench.json, screen.json, finals.json
inline constexpr std::string_view kAblationSchema = "kopt.ablation/1";
inline constexpr std::string_view kIterationSchema = "kopt.iteration/1";

// `document` with "schema": `schema` first.
nlohmann::json with_schema(std::string_view schema, const nlohmann::json& document);

// Throws input_error ("FILE: kopt.screen/2 is not kopt.measurement/1, the version this kopt
// reads") unless `document` says `schema` or, written before schemas, says none.
void require_schema(const nlohmann::json& document, std::string_view schema, const std::filesystem::path& file);

}  // namespace kopt::loop
