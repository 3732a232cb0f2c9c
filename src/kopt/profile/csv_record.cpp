#include "kopt/profile/csv_record.hpp"

namespace kopt::profile {
namespace {

// Reads a quoted field starting at line[pos] == '"'; leaves pos after the closing quote.
std::optional<std::string> read_quoted(std::string_view line, size_t& pos) {
  std::string field;
  for (++pos; pos < line.size(); ++pos) {
    if (line[pos] != '"') {
      field += line[pos];
    } else if (pos + 1 < line.size() && line[pos + 1] == '"') {
      field += '"';
      ++pos;
    } else {
      ++pos;
      return field;
    }
  }
  return std::nullopt;  // the line ended inside quotes
}

// Reads an unquoted field up to the next comma; a quote inside it is malformed.
std::optional<std::string> read_plain(std::string_view line, size_t& pos) {
  size_t end = line.find(',', pos);
  if (end == std::string_view::npos) end = line.size();
  std::string_view field = line.substr(pos, end - pos);
  if (field.find('"') != std::string_view::npos) return std::nullopt;
  pos = end;
  return std::string(field);
}

}  // namespace

std::optional<std::vector<std::string>> split_csv_record(std::string_view line) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  std::vector<std::string> fields;
  size_t pos = 0;
  while (true) {
    std::optional<std::string> field =
        pos < line.size() && line[pos] == '"' ? read_quoted(line, pos) : read_plain(line, pos);
    if (!field) return std::nullopt;
    fields.push_back(std::move(*field));
    if (pos == line.size()) return fields;
    if (line[pos] != ',') return std::nullopt;  // text after a closing quote
    ++pos;
  }
}

}  // namespace kopt::profile
