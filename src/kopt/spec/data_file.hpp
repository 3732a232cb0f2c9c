#pragma once
// Every file under data/ is read through here: TOML parsed with the file's name (and line) in
// its errors, its `schema_version` checked against the layout this kopt reads, and unknown
// keys refused with the same words everywhere. One error line, exit 2, for each.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kopt/spec/toml.hpp"

namespace kopt::spec {

// The layout of data/*.toml this kopt reads; every data file says `schema_version = 1`.
inline constexpr std::int64_t kDataSchemaVersion = 1;

// `text` as the data file `file_name`: throws input_error for a TOML error ("file:line:col:
// reason") or a schema_version other than kDataSchemaVersion.
toml::table parse_data_file(std::string_view text, std::string_view file_name);

// data/<name> (core/embedded_files.hpp's data_file), parsed as above.
toml::table load_data_file(const std::string& name);

// The first key of `table` (by name) that is not in `known`, if any.
std::optional<std::string> first_unknown_key(const toml::table& table, const std::vector<std::string_view>& known);

// "unknown key \"colour\" (known: name, bytes)": the words every data file's loader uses.
std::string unknown_key_text(std::string_view key, const std::vector<std::string_view>& known);

// The table [name] of the data file `file_name` (parsed into `root`), every key of which is in
// `known`; throws environment_error naming the file and table otherwise ("FILE: missing [name]",
// "FILE: [name]: unknown key ..."): a data file is kopt's own, so a broken one is its install's.
const toml::table& data_section(const toml::table& root, std::string_view file_name, std::string_view name,
                                const std::vector<std::string_view>& known);

// The array of strings `key` of a data file's [section]; throws environment_error naming the
// file, the table and the key when it is missing or holds anything but strings.
std::vector<std::string> data_strings(const toml::table& section, std::string_view file_name, std::string_view name,
                                      std::string_view key);

}  // namespace kopt::spec
