#include "kopt/measure/witness_file.hpp"

#include <cmath>
#include <optional>

#include "kopt/core/error.hpp"
#include "kopt/spec/data_file.hpp"

namespace kopt::measure {

toml::table witness_section(std::string_view name) {
  const toml::table root = spec::load_data_file(std::string(kWitnessFile));
  const toml::table* section = root[name].as_table();
  if (section == nullptr) throw environment_error("{}: no [{}] table", kWitnessFile, name);
  return *section;
}

double positive_witness_number(const toml::table& section, std::string_view section_name, std::string_view key) {
  const std::optional<double> value = section[key].value<double>();
  if (!value || !(*value > 0)) {
    throw environment_error("{}: [{}] {} must be a positive number", kWitnessFile, section_name, key);
  }
  return *value;
}

std::size_t positive_witness_count(const toml::table& section, std::string_view section_name, std::string_view key) {
  const double value = positive_witness_number(section, section_name, key);
  if (value != std::floor(value)) {
    throw environment_error("{}: [{}] {} must be a whole number", kWitnessFile, section_name, key);
  }
  return static_cast<std::size_t>(value);
}

}  // namespace kopt::measure
