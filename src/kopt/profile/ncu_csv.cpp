#include "kopt/profile/ncu_csv.hpp"

#include <charconv>
#include <cmath>

#include "kopt/profile/csv_record.hpp"

namespace kopt::profile {
namespace {

using Record = std::vector<std::string>;

bool is_tool_message(std::string_view line) { return line.starts_with("=="); }

bool is_blank(std::string_view line) { return line.find_first_not_of(" \t\r") == std::string_view::npos; }

// The header row names the launch columns first; a row starting "ID" with a "Kernel Name"
// column is it (the program's own output could be CSV too, but not this row).
bool is_header(const Record& record) {
  if (record.empty() || record.front() != "ID") return false;
  for (const std::string& field : record) {
    if (field == "Kernel Name") return true;
  }
  return false;
}

std::string_view column(const Record& header, const Record& row, std::string_view name) {
  for (size_t i = 0; i < header.size(); ++i) {
    if (header[i] == name) return row[i];
  }
  return {};
}

KernelLaunch make_launch(const Record& header, const Record& units, const Record& row) {
  KernelLaunch launch;
  for (size_t i = 0; i < header.size(); ++i) {
    std::optional<double> number = parse_ncu_number(row[i]);
    launch.metrics[header[i]] =
        MetricValue{.value = number.value_or(0), .unit = units[i], .present = number.has_value(), .text = row[i]};
  }
  launch.id = static_cast<int>(parse_ncu_number(column(header, row, "ID")).value_or(-1));
  launch.kernel_name = std::string(column(header, row, "Kernel Name"));
  launch.grid = parse_ncu_dim3(column(header, row, "Grid Size")).value_or(Dim3{});
  launch.block = parse_ncu_dim3(column(header, row, "Block Size")).value_or(Dim3{});
  return launch;
}

// The table being read: its header, then its units row once seen.
struct Table {
  Record header;
  std::optional<Record> units;
};

}  // namespace

const MetricValue* KernelLaunch::find(std::string_view name) const {
  auto it = metrics.find(std::string(name));
  return it == metrics.end() ? nullptr : &it->second;
}

std::optional<double> parse_ncu_number(std::string_view cell) {
  std::string digits;
  for (char c : cell) {
    if (c != ',') digits += c;
  }
  if (digits.empty() || digits.find_first_not_of("0123456789.-+eE") != std::string::npos) return std::nullopt;
  double value = 0;
  const char* end = digits.data() + digits.size();
  auto [ptr, ec] = std::from_chars(digits.data(), end, value);
  if (ec != std::errc() || ptr != end || !std::isfinite(value)) return std::nullopt;
  return value;
}

std::optional<Dim3> parse_ncu_dim3(std::string_view cell) {
  if (cell.size() < 2 || cell.front() != '(' || cell.back() != ')') return std::nullopt;
  std::optional<Record> parts = split_csv_record(cell.substr(1, cell.size() - 2));
  if (!parts || parts->size() != 3) return std::nullopt;
  std::int64_t xyz[3] = {};
  for (int i = 0; i < 3; ++i) {
    std::string_view part = (*parts)[i];
    while (!part.empty() && part.front() == ' ') part.remove_prefix(1);
    auto [ptr, ec] = std::from_chars(part.data(), part.data() + part.size(), xyz[i]);
    if (ec != std::errc() || ptr != part.data() + part.size()) return std::nullopt;
  }
  return Dim3{xyz[0], xyz[1], xyz[2]};
}

NcuReport parse_ncu_raw_csv(std::string_view text) {
  NcuReport report;
  std::optional<Table> table;
  while (!text.empty()) {
    size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (is_blank(line)) continue;
    if (is_tool_message(line)) {
      report.tool_messages.emplace_back(line);
      continue;
    }
    std::optional<Record> record = split_csv_record(line);
    if (record && is_header(*record)) {
      table = Table{.header = std::move(*record)};
    } else if (!record || !table || record->size() != table->header.size()) {
      report.unparsed.emplace_back(line);  // not a row of the table: the program's own output
    } else if (!table->units) {
      table->units = std::move(*record);
    } else {
      report.launches.push_back(make_launch(table->header, *table->units, *record));
    }
  }
  return report;
}

}  // namespace kopt::profile
