#include "kopt/loop/run_documents.hpp"

#include "kopt/core/error.hpp"

namespace kopt::loop {

nlohmann::json with_schema(std::string_view schema, const nlohmann::json& document) {
  nlohmann::json stamped = {{"schema", schema}};
  for (const auto& [key, value] : document.items()) stamped[key] = value;
  return stamped;
}

void require_schema(const nlohmann::json& document, std::string_view schema, const std::filesystem::path& file) {
  if (!document.is_object()) throw input_error("{}: not a JSON object", file.string());
  const auto found = document.find("schema");
  if (found == document.end()) return;  // written before run documents carried a schema: version 1
  if (!found->is_string() || found->get<std::string>() != schema) {
    throw input_error("{}: {} is not {}, the version this kopt reads", file.string(), found->dump(), schema);
  }
}

}  // namespace kopt::loop
