#pragma once
// Typed reads of one entry of a data file (data/methods.toml, data/sass_signatures.toml,
// data/precisions.toml); every failure is one input_error naming the file, the line and the
// entry. Only the loaders include it: toml++ is a heavy header.

#include <algorithm>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kopt/core/error.hpp"
#include "kopt/spec/data_file.hpp"

namespace kopt::spec {

class DataEntry {
 public:
  DataEntry(std::string_view file, std::string entry, const toml::node& node)
      : file_(file), entry_(std::move(entry)), node_(node) {}

  const std::string& name() const { return entry_; }
  std::string_view file() const { return file_; }

  Error failure(std::string_view what) const {
    return input_error("{}:{}: {}: {}", file_, node_.source().begin.line, entry_, what);
  }

  const toml::table& table() const {
    if (!node_.is_table()) throw failure("must be a table");
    return *node_.as_table();
  }

  void reject_unknown_keys(const std::vector<std::string_view>& known) const {
    if (auto key = first_unknown_key(table(), known)) throw failure(unknown_key_text(*key, known));
  }

  std::optional<std::string> optional_string(std::string_view key) const {
    const toml::node* node = table().get(key);
    if (node == nullptr) return std::nullopt;
    std::optional<std::string> value = node->value_exact<std::string>();
    if (!value || value->empty()) throw failure(fmt::format("{} must be a non-empty string", key));
    return value;
  }

  std::string string(std::string_view key) const {
    std::optional<std::string> value = optional_string(key);
    if (!value) throw failure(fmt::format("{} is required", key));
    return *value;
  }

  std::optional<long long> optional_integer(std::string_view key) const {
    const toml::node* node = table().get(key);
    if (node == nullptr) return std::nullopt;
    std::optional<long long> value = node->value_exact<long long>();
    if (!value) throw failure(fmt::format("{} must be an integer", key));
    return value;
  }

  long long integer(std::string_view key) const {
    std::optional<long long> value = optional_integer(key);
    if (!value) throw failure(fmt::format("{} is required", key));
    return *value;
  }

  // A required number (an integer reads as one too).
  double number(std::string_view key) const {
    const toml::node* node = table().get(key);
    if (node == nullptr) throw failure(fmt::format("{} is required", key));
    std::optional<double> value = node->value<double>();
    if (!value) throw failure(fmt::format("{} must be a number", key));
    return *value;
  }

  // A required array of numbers (integers read as numbers too).
  std::vector<double> numbers(std::string_view key) const {
    const toml::node* node = table().get(key);
    if (node == nullptr) throw failure(fmt::format("{} is required", key));
    const toml::array* array = node->as_array();
    if (array == nullptr) throw failure(fmt::format("{} must be an array of numbers", key));
    std::vector<double> values;
    for (const toml::node& element : *array) {
      std::optional<double> value = element.value<double>();
      if (!value) throw failure(fmt::format("{} must be an array of numbers", key));
      values.push_back(*value);
    }
    return values;
  }

  std::vector<std::string> strings(std::string_view key) const {
    const toml::node* node = table().get(key);
    if (node == nullptr) return {};
    const toml::array* array = node->as_array();
    if (array == nullptr) throw failure(fmt::format("{} must be an array of strings", key));
    std::vector<std::string> values;
    for (const toml::node& element : *array) {
      std::optional<std::string> value = element.value_exact<std::string>();
      if (!value || value->empty()) throw failure(fmt::format("{} must be an array of non-empty strings", key));
      values.push_back(*value);
    }
    return values;
  }

 private:
  std::string_view file_;
  std::string entry_;
  const toml::node& node_;
};

}  // namespace kopt::spec
