#pragma once
// The profile stage's data files (data/metrics.toml, data/ncu_top.toml), read as every data
// file is (spec/data_file.hpp).

#include <string_view>

#include "kopt/spec/data_file.hpp"

namespace kopt::profile {

inline toml::table parse_data_toml(std::string_view toml_text, std::string_view file_name) {
  return spec::parse_data_file(toml_text, file_name);
}

}  // namespace kopt::profile
