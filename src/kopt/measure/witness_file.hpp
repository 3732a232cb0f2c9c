#pragma once
// data/witness.toml: the rules of kopt's outside witnesses ([sample], [code], [ncu]), of the
// worker's host clock against its events ([escape]) and of the audit of timed calls ([audit]),
// one file read the same way by each.

#include <cstddef>
#include <string>
#include <string_view>

#include "kopt/spec/toml.hpp"

namespace kopt::measure {

inline constexpr std::string_view kWitnessFile = "data/witness.toml";

// The file's [name] table (an environment error naming the file when it has none).
toml::table witness_section(std::string_view name);

// The positive number at `key` of [section] (an environment error naming file, table and key).
double positive_witness_number(const toml::table& section, std::string_view section_name, std::string_view key);

// The positive whole number at `key` of [section] (a count of calls).
std::size_t positive_witness_count(const toml::table& section, std::string_view section_name, std::string_view key);

}  // namespace kopt::measure
