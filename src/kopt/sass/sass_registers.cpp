#include "kopt/sass/sass_registers.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <set>

namespace kopt::sass {
namespace {

bool is_word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Instructions whose first operand is an address or a value read, never a destination.
const std::set<std::string, std::less<>> kStores = {"STG", "STS", "ST", "STL", "STSM", "RED", "REDG",
                                                    "BRA", "EXIT", "RET", "CALL", "BAR", "MEMBAR"};

// How many consecutive registers the destination fills: R4 of LDG.E.128 is R4..R7.
int destination_width(const Instruction& instruction) {
  if (instruction.has_modifier("128")) return 4;
  if (instruction.has_modifier("64") || instruction.has_modifier("WIDE")) return 2;
  if (instruction.opcode == "DFMA" || instruction.opcode == "DADD" || instruction.opcode == "DMUL") return 2;
  return 1;
}

// "R12" → ("R", 12); "UR4" → ("UR", 4); anything else → nothing.
std::optional<std::pair<std::string, int>> split_register(std::string_view name) {
  const std::string prefix = name.starts_with("UR") ? "UR" : name.starts_with("R") ? "R" : "";
  if (prefix.empty() || name.size() == prefix.size()) return std::nullopt;
  int number = 0;
  const char* first = name.data() + prefix.size();
  const auto [end, error] = std::from_chars(first, name.data() + name.size(), number);
  if (error != std::errc() || end != name.data() + name.size()) return std::nullopt;
  return std::make_pair(prefix, number);
}

}  // namespace

std::vector<std::string> registers_in(std::string_view operand) {
  std::vector<std::string> found;
  for (size_t i = 0; i < operand.size(); ++i) {
    if (i > 0 && is_word_char(operand[i - 1])) continue;
    const size_t prefix = operand.substr(i).starts_with("UR") ? 2 : operand[i] == 'R' ? 1 : 0;
    size_t end = i + prefix;
    while (prefix > 0 && end < operand.size() && std::isdigit(static_cast<unsigned char>(operand[end]))) ++end;
    if (prefix == 0 || end == i + prefix || (end < operand.size() && is_word_char(operand[end]))) continue;
    const std::string name(operand.substr(i, end - i));
    found.push_back(name);
    if (operand.substr(end).starts_with(".64")) {
      const auto [kind, number] = *split_register(name);
      found.push_back(kind + std::to_string(number + 1));
    }
    i = end - 1;
  }
  return found;
}

std::vector<std::string> written_registers(const Instruction& instruction) {
  if (instruction.operands.empty() || kStores.contains(instruction.opcode)) return {};
  const auto reg = split_register(instruction.operands.front());
  if (!reg) return {};
  std::vector<std::string> written;
  for (int i = 0; i < destination_width(instruction); ++i) written.push_back(reg->first + std::to_string(reg->second + i));
  return written;
}

std::vector<std::string> read_registers(const Instruction& instruction) {
  const bool writes = !written_registers(instruction).empty();
  std::vector<std::string> read;
  for (size_t i = writes ? 1 : 0; i < instruction.operands.size(); ++i) {
    for (std::string& name : registers_in(instruction.operands[i])) read.push_back(std::move(name));
  }
  return read;
}

std::optional<std::uint64_t> branch_target(const Instruction& instruction) {
  if (instruction.opcode != "BRA" || instruction.operands.empty()) return std::nullopt;
  const std::string& target = instruction.operands.back();
  if (!target.starts_with("0x")) return std::nullopt;
  std::uint64_t address = 0;
  const char* last = target.data() + target.size();
  const auto [end, error] = std::from_chars(target.data() + 2, last, address, 16);
  if (error != std::errc() || end != last) return std::nullopt;
  return address;
}

std::optional<std::int64_t> immediate_value(std::string_view operand) {
  const bool negative = operand.starts_with("-");
  if (negative) operand.remove_prefix(1);
  const bool hex = operand.starts_with("0x");
  if (hex) operand.remove_prefix(2);
  std::int64_t value = 0;
  const auto [end, error] = std::from_chars(operand.data(), operand.data() + operand.size(), value, hex ? 16 : 10);
  if (operand.empty() || error != std::errc() || end != operand.data() + operand.size()) return std::nullopt;
  return negative ? -value : value;
}

std::optional<std::string> address_register(std::string_view operand) {
  for (size_t open = operand.find('['); open != std::string_view::npos; open = operand.find('[', open + 1)) {
    const size_t close = operand.find(']', open);
    for (const std::string& name : registers_in(operand.substr(open, close - open))) {
      if (name.starts_with("R")) return name;
    }
  }
  return std::nullopt;
}

}  // namespace kopt::sass
