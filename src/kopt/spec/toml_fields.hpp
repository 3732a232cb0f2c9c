#pragma once
// Typed access to the tables of a parsed kopt.toml, each failure an input_error naming the
// file and the line. Private to spec/ and header-only on purpose: toml++ is a heavy header,
// so problem_spec.cpp is the one translation unit that reads kopt.toml.

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "kopt/core/error.hpp"
#include "kopt/spec/problem_spec.hpp"
#include "kopt/spec/toml.hpp"

namespace kopt::spec {

struct TomlEntry {
  std::string key;
  const toml::node* node = nullptr;
  int line = 0;
  int column = 0;
};

inline std::string toml_type_name(const toml::node& node) {
  if (node.is_string()) return "a string";
  if (node.is_number()) return "a number";
  if (node.is_boolean()) return "a boolean";
  if (node.is_array()) return "an array";
  if (node.is_table()) return "a table";
  return "a date or time";
}

// toml++ keeps a table's keys sorted; the spec's own order is that of their source positions.
inline std::vector<TomlEntry> in_spec_order(const toml::table& table) {
  std::vector<TomlEntry> entries;
  for (const auto& [key, node] : table) {
    const toml::source_position& at = key.source().begin;
    entries.push_back(
        {std::string(key.str()), &node, static_cast<int>(at.line), static_cast<int>(at.column)});
  }
  std::ranges::sort(entries, {}, [](const TomlEntry& e) { return std::pair(e.line, e.column); });
  return entries;
}

class TomlFields {
 public:
  explicit TomlFields(std::string_view file_name) : file_name_(file_name) {}

  const std::string& file_name() const { return file_name_; }

  Error failure(const toml::node& node, std::string_view what) const {
    return failure(static_cast<int>(node.source().begin.line), what);
  }
  Error failure(int line, std::string_view what) const {
    return input_error("{}:{}: {}", file_name_, line, what);
  }

  // A typo must not be silently ignored.
  void reject_unknown_keys(const toml::table& table, std::string_view where,
                           const std::vector<std::string_view>& known) const {
    for (const TomlEntry& entry : in_spec_order(table)) {
      if (std::ranges::find(known, entry.key) != known.end()) continue;
      std::string names;
      for (std::string_view name : known) names += (names.empty() ? "" : ", ") + std::string(name);
      throw failure(entry.line, fmt::format("unknown key \"{}\"{}{} (known: {})", entry.key,
                                            where.empty() ? "" : " in ", where, names));
    }
  }

  const toml::table& table_at(const toml::table& parent, std::string_view key) const {
    const toml::node& node = *parent.get(key);
    if (!node.is_table()) {
      throw failure(node, fmt::format("{} must be a table, not {}", key, toml_type_name(node)));
    }
    return *node.as_table();
  }

  std::string string_at(const toml::table& parent, std::string_view key) const {
    const toml::node& node = *parent.get(key);
    std::optional<std::string> value = node.value_exact<std::string>();
    if (!value || value->empty()) {
      throw failure(node, fmt::format("{} must be a non-empty string, not {}", key, toml_type_name(node)));
    }
    return *value;
  }

  std::vector<std::string> strings_at(const toml::node& node, std::string_view where) const {
    const toml::array* array = node.as_array();
    bool all_strings = array != nullptr && array->is_homogeneous(toml::node_type::string);
    if (!all_strings && !(array != nullptr && array->empty())) {
      throw failure(node, fmt::format("{} must be an array of strings", where));
    }
    std::vector<std::string> values;
    for (const toml::node& element : *array) values.push_back(*element.value_exact<std::string>());
    return values;
  }

  // Tune values become -D macro values: numbers as written, strings verbatim.
  std::vector<std::string> values_at(const toml::node& node, std::string_view where) const {
    const toml::array* array = node.as_array();
    if (array == nullptr || array->empty()) {
      throw failure(node, fmt::format("{} must be a non-empty array of values", where));
    }
    std::vector<std::string> values;
    for (const toml::node& element : *array) {
      std::optional<std::string> text = number_text(element);
      if (!text) text = element.value_exact<std::string>();
      if (!text || text->empty()) {
        throw failure(element, fmt::format("{} values must be numbers or non-empty strings, not {}", where,
                                           toml_type_name(element)));
      }
      values.push_back(std::move(*text));
    }
    return values;
  }

  // A string, or a bare number (flops = 1000 is as good as flops = "1000").
  Expression expression_at(const toml::node& node, std::string_view where) const {
    std::optional<std::string> text = number_text(node);
    if (!text) text = node.value_exact<std::string>();
    if (!text) {
      throw failure(node,
                    fmt::format("{} must be an expression string, not {}", where, toml_type_name(node)));
    }
    try {
      return Expression::parse(*text);
    } catch (const Error& error) {
      throw failure(node, fmt::format("{}: {}", where, error.what()));
    }
  }

  InitFormula init_at(const toml::node& node, std::string_view where) const {
    std::optional<std::string> text = node.value_exact<std::string>();
    if (!text) {
      throw failure(node, fmt::format("{} init must be a string, not {}", where, toml_type_name(node)));
    }
    try {
      return InitFormula::parse(*text);
    } catch (const Error& error) {
      throw failure(node, fmt::format("{}: {}", where, error.what()));
    }
  }

  // Integer or floating TOML values as a Number; nullopt for anything else.
  static std::optional<Number> number_at(const toml::node& node) {
    if (std::optional<std::int64_t> integer = node.value_exact<std::int64_t>()) return Number(*integer);
    if (node.is_floating_point()) return Number(*node.value<double>());
    return std::nullopt;
  }

 private:
  static std::optional<std::string> number_text(const toml::node& node) {
    std::optional<Number> number = number_at(node);
    return number ? std::optional(to_string(*number)) : std::nullopt;
  }

  std::string file_name_;
};

}  // namespace kopt::spec
