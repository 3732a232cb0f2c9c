#include "kopt/spec/block_scaled.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "kopt/core/error.hpp"
#include "kopt/spec/data_file.hpp"
#include "kopt/spec/toml.hpp"

namespace kopt::spec {
namespace {

constexpr std::string_view kBlockScaledTable = "data/block_scaled_formats.toml";

int format_table_integer(const toml::table& entry, std::string_view key, std::string_view where, int lo, int hi) {
  const std::optional<std::int64_t> value = entry[key].value<std::int64_t>();
  if (!value || *value < lo || *value > hi) {
    throw input_error("{}: {}: \"{}\" must be a whole number from {} to {}", kBlockScaledTable, where, key, lo, hi);
  }
  return static_cast<int>(*value);
}

BlockElementFormat read_element_format(const toml::table& entry, std::size_t index) {
  static const std::vector<std::string_view> known = {"name", "torch", "exponent_bits", "mantissa_bits",
                                                      "max", "per_byte", "nan_code"};
  const std::string where = fmt::format("element entry {}", index + 1);
  if (auto key = first_unknown_key(entry, known)) throw input_error("{}: {}: {}", kBlockScaledTable, where, unknown_key_text(*key, known));
  BlockElementFormat format;
  format.name = entry["name"].value<std::string>().value_or("");
  format.torch_name = entry["torch"].value<std::string>().value_or("");
  if (format.name.empty() || format.torch_name.empty()) {
    throw input_error("{}: {}: \"name\" and \"torch\" must be non-empty strings", kBlockScaledTable, where);
  }
  format.exponent_bits = format_table_integer(entry, "exponent_bits", where, 1, 5);
  format.mantissa_bits = format_table_integer(entry, "mantissa_bits", where, 0, 6);
  if (1 + format.exponent_bits + format.mantissa_bits > 8) {
    throw input_error("{}: {}: sign, exponent and mantissa must fit a byte", kBlockScaledTable, where);
  }
  format.per_byte = format_table_integer(entry, "per_byte", where, 1, 2);
  format.nan_code = format_table_integer(entry, "nan_code", where, -1, 127);
  format.max = entry["max"].value<double>().value_or(0);
  if (!(format.max > 0) || !std::isfinite(format.max)) {
    throw input_error("{}: {}: \"max\" must be a finite number > 0", kBlockScaledTable, where);
  }
  return format;
}

struct FormatTable {
  std::vector<BlockElementFormat> elements;
  ScaleFormat scale;
};

FormatTable load_format_table() {
  const toml::table root = load_data_file(std::string(kBlockScaledTable));
  FormatTable table;
  const toml::array* elements = root["element"].as_array();
  if (elements == nullptr || elements->empty()) throw input_error("{}: no [[element]] entries", kBlockScaledTable);
  for (std::size_t i = 0; i < elements->size(); ++i) {
    const toml::table* entry = (*elements)[i].as_table();
    if (entry == nullptr) throw input_error("{}: element entry {} is not a table", kBlockScaledTable, i + 1);
    table.elements.push_back(read_element_format(*entry, i));
  }
  const toml::table* scale = root["scale"].as_table();
  if (scale == nullptr) throw input_error("{}: no [scale] table", kBlockScaledTable);
  table.scale.bias = format_table_integer(*scale, "bias", "[scale]", 0, 254);
  table.scale.nan = format_table_integer(*scale, "nan", "[scale]", 0, 255);
  return table;
}

const FormatTable& format_table() {
  static const FormatTable loaded = load_format_table();
  return loaded;
}

}  // namespace

int BlockElementFormat::max_pow2() const {
  int exponent = 0;
  std::frexp(max, &exponent);  // max = m * 2^exponent, m in [0.5, 1)
  return exponent - 1;
}

const std::vector<BlockElementFormat>& block_element_formats() { return format_table().elements; }

const BlockElementFormat& block_element_format(std::string_view name) {
  const std::vector<BlockElementFormat>& formats = block_element_formats();
  auto found = std::ranges::find_if(formats, [&](const BlockElementFormat& f) { return f.name == name; });
  if (found != formats.end()) return *found;
  std::vector<std::string> names;
  for (const BlockElementFormat& format : formats) names.push_back(format.name);
  throw input_error("\"{}\" is no element format of {} ({})", name, kBlockScaledTable, fmt::join(names, ", "));
}

const ScaleFormat& block_scale_format() { return format_table().scale; }

std::int64_t blocked_scale_bytes(std::int64_t rows, std::int64_t blocks_per_row) {
  return (rows + 127) / 128 * 128 * ((blocks_per_row + 3) / 4 * 4);
}

std::int64_t block_scaled_source_values(const BlockScaledInit& init, std::int64_t bytes) {
  switch (init.part) {
    case BlockScaledPart::data: return bytes * block_element_format(init.element).per_byte;
    case BlockScaledPart::scale: return bytes * init.block;
    case BlockScaledPart::scale_blocked: return init.rows * init.columns;
  }
  return 0;
}

std::string block_scaled_size_problem(const BlockScaledInit& init, std::int64_t bytes) {
  const int per_byte = block_element_format(init.element).per_byte;
  if (init.block % per_byte != 0) {
    return fmt::format("a block of {} {} values does not fill whole bytes ({} to a byte)", init.block, init.element, per_byte);
  }
  if (init.part == BlockScaledPart::data && block_scaled_source_values(init, bytes) % init.block != 0) {
    return fmt::format("{} bytes hold {} values, not a whole number of blocks of {}", bytes,
                       block_scaled_source_values(init, bytes), init.block);
  }
  if (init.part != BlockScaledPart::scale_blocked) return "";
  if (init.columns % init.block != 0) {
    return fmt::format("the source's {} columns are not a whole number of blocks of {}", init.columns, init.block);
  }
  const std::int64_t expected = blocked_scale_bytes(init.rows, init.columns / init.block);
  if (bytes != expected) {
    return fmt::format("the blocked scales of {} x {} values take {} bytes, but the buffer has {}", init.rows,
                       init.columns, expected, bytes);
  }
  return "";
}

}  // namespace kopt::spec
