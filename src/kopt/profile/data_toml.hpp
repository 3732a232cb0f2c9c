#pragma once
// The profile stage's data files (data/metrics.toml, data/ncu_top.toml): TOML with
// `schema_version = 1`, read the same way, with one error line naming the file.

#include <string_view>

#include "kopt/core/error.hpp"
#include "kopt/spec/toml.hpp"

namespace kopt::profile {

inline toml::table parse_data_toml(std::string_view toml_text, std::string_view file_name) {
  toml::table root;
  try {
    root = toml::parse(toml_text, file_name);
  } catch (const toml::parse_error& e) {
    throw input_error("{}: {}", file_name, e.description());
  }
  if (root["schema_version"].value<int64_t>() != 1) throw input_error("{}: 'schema_version' must be 1", file_name);
  return root;
}

}  // namespace kopt::profile
