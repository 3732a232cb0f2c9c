#include "kopt/spec/data_file.hpp"

#include <algorithm>

#include "kopt/core/embedded_files.hpp"
#include "kopt/core/error.hpp"

namespace kopt::spec {

toml::table parse_data_file(std::string_view text, std::string_view file_name) {
  toml::table table;
  try {
    table = toml::parse(text, file_name);
  } catch (const toml::parse_error& error) {
    throw input_error("{}:{}:{}: {}", file_name, error.source().begin.line, error.source().begin.column,
                      error.description());
  }
  // A newer layout needs a newer kopt; an older one is not read loosely either.
  if (table["schema_version"].value_exact<std::int64_t>() != kDataSchemaVersion) {
    throw input_error("{}: \"schema_version\" must be {} (the layout this kopt reads)", file_name, kDataSchemaVersion);
  }
  return table;
}

toml::table load_data_file(const std::string& name) { return parse_data_file(data_file(name), name); }

std::optional<std::string> first_unknown_key(const toml::table& table, const std::vector<std::string_view>& known) {
  for (const auto& [key, value] : table) {
    if (std::ranges::find(known, key.str()) == known.end()) return std::string(key.str());
  }
  return std::nullopt;
}

std::string unknown_key_text(std::string_view key, const std::vector<std::string_view>& known) {
  std::string names;
  for (std::string_view name : known) names += (names.empty() ? "" : ", ") + std::string(name);
  return fmt::format("unknown key \"{}\" (known: {})", key, names);
}

const toml::table& data_section(const toml::table& root, std::string_view file_name, std::string_view name,
                                const std::vector<std::string_view>& known) {
  const toml::table* table = root[name].as_table();
  if (table == nullptr) throw environment_error("{}: missing [{}]", file_name, name);
  if (auto unknown = first_unknown_key(*table, known)) {
    throw environment_error("{}: [{}]: {}", file_name, name, unknown_key_text(*unknown, known));
  }
  return *table;
}

std::vector<std::string> data_strings(const toml::table& section, std::string_view file_name, std::string_view name,
                                      std::string_view key) {
  const toml::array* array = section[key].as_array();
  if (array == nullptr || !(array->empty() || array->is_homogeneous(toml::node_type::string))) {
    throw environment_error("{}: [{}] {} must be an array of strings", file_name, name, key);
  }
  std::vector<std::string> values;
  for (const toml::node& node : *array) values.push_back(*node.value_exact<std::string>());
  return values;
}

}  // namespace kopt::spec
