#include "kopt/sass/sass_dataflow.hpp"

#include <algorithm>
#include <array>
#include <map>
#include <optional>
#include <string_view>

#include "kopt/sass/sass_registers.hpp"

namespace kopt::sass::dataflow {

bool is_integer_arithmetic(const Instruction& i) {
  const std::string& op = i.opcode;
  if (op.starts_with("LD") || op.starts_with("ST") || op.starts_with("ATOM") || op.starts_with("RED")) return false;
  if (op.starts_with("F") || op.starts_with("H") || op.starts_with("D") || op == "MUFU") return false;
  return op != "S2R" && op != "S2UR" && op != "CS2R";
}

namespace {

bool reads_any(const Instruction& i, const std::set<std::string>& registers) {
  const std::vector<std::string> read = read_registers(i);
  return std::ranges::any_of(read, [&](const std::string& r) { return registers.contains(r); });
}

// What a register's value comes from, followed forward through integer arithmetic: the
// thread index, the block index, an XOR of a thread-dependent value.
struct Lineage {
  std::set<std::string> thread, block, xored;
};

bool reads_special(const Instruction& i, std::string_view prefix) {
  return (i.opcode == "S2R" || i.opcode == "S2UR") &&
         std::ranges::any_of(i.operands, [&](const std::string& op) { return op.starts_with(prefix); });
}

void assign(std::set<std::string>& set, const std::vector<std::string>& registers, bool on) {
  for (const std::string& r : registers) {
    if (on) {
      set.insert(r);
    } else {
      set.erase(r);
    }
  }
}

bool is_xor(const Instruction& i);

void advance(Lineage& lineage, const Instruction& i) {
  const std::vector<std::string> dests = written_registers(i);
  const bool integer = is_integer_arithmetic(i);
  const bool thread = reads_special(i, "SR_TID") || reads_special(i, "SR_LANEID") || (integer && reads_any(i, lineage.thread));
  const bool block = reads_special(i, "SR_CTAID") || (integer && reads_any(i, lineage.block));
  const bool xored = (is_xor(i) && reads_any(i, lineage.thread)) || (integer && reads_any(i, lineage.xored));
  assign(lineage.thread, dests, thread);
  assign(lineage.block, dests, block);
  assign(lineage.xored, dests, xored);
}

bool is_xor(const Instruction& i) {
  static constexpr std::array<std::int64_t, 8> kXorTables = {0x3c, 0x5a, 0x66, 0x96, 0xc3, 0xa5, 0x99, 0x69};
  if (i.opcode != "LOP3" && i.opcode != "ULOP3") return false;
  if (i.operands.size() < 5 || written_registers(i).empty()) return false;
  const auto table = immediate_value(i.operands[4]);
  return table && std::ranges::find(kXorTables, *table) != kXorTables.end();
}

bool is_shared_access(const Instruction& i) {
  static const std::set<std::string, std::less<>> shared = {"LDS", "STS", "LDSM", "STSM", "ATOMS", "LDGSTS"};
  return shared.contains(i.opcode);
}

bool is_remap(const Instruction& i) {
  if (i.opcode == "SHF" || i.opcode == "USHF") {
    const bool sign = std::ranges::any_of(i.operands, [](const std::string& op) { return op == "0x1f"; });
    return i.has_modifier("R") && !sign;
  }
  if (i.opcode == "LOP3" || i.opcode == "ULOP3") {
    return i.operands.size() >= 5 && immediate_value(i.operands[4]) == 0xc0;
  }
  if (i.opcode == "LEA") return i.has_modifier("HI") && !i.has_modifier("X");
  return (i.opcode == "IMAD" && i.has_modifier("HI")) || (i.opcode == "I2F" && i.has_modifier("RP"));
}

}  // namespace

int xor_shared_addresses(Code code) {
  Lineage lineage;
  int count = 0;
  for (const Instruction& i : code) {
    const bool swizzled = is_shared_access(i) && std::ranges::any_of(i.operands, [&](const std::string& op) {
      const auto base = address_register(op);
      return base && op.find('[') != std::string::npos && !op.starts_with("desc") && lineage.xored.contains(*base);
    });
    if (swizzled) ++count;
    advance(lineage, i);
  }
  return count;
}

// Only a value of the block index alone: a thread's own row divided by a tile width is not a
// remapped raster order.
int block_index_remaps(Code code) {
  Lineage lineage;
  int count = 0;
  for (const Instruction& i : code) {
    if (is_remap(i) && reads_any(i, lineage.block) && !reads_any(i, lineage.thread)) ++count;
    advance(lineage, i);
  }
  return count;
}

int transformed_accumulator_stores(Code code, size_t from, const std::set<std::string>& accumulators) {
  std::set<std::string> raw = accumulators, derived;
  int count = 0;
  for (size_t n = from; n < code.size(); ++n) {
    const Instruction& i = code[n];
    if ((i.opcode == "STG" || i.opcode == "ST") && i.operands.size() >= 2) {
      const std::vector<std::string> data = registers_in(i.operands[1]);
      if (std::ranges::any_of(data, [&](const std::string& r) { return derived.contains(r); })) ++count;
    }
    const std::vector<std::string> read = read_registers(i);
    const auto is_raw = [&](const std::string& r) { return raw.contains(r); };
    const bool touches = std::ranges::any_of(read, [&](const std::string& r) { return raw.contains(r) || derived.contains(r); });
    bool keeps_raw = touches && std::ranges::all_of(read, is_raw) && (i.opcode == "MOV" || i.opcode == "FADD");
    if (i.opcode == "IMAD" && i.has_modifier("MOV")) keeps_raw = touches && std::ranges::all_of(read, is_raw);
    if (i.opcode == "FFMA" && i.operands.size() >= 4) {
      const std::vector<std::string> addend = registers_in(i.operands[3]);
      const bool product_raw = std::ranges::any_of(registers_in(i.operands[1]), is_raw) ||
                               std::ranges::any_of(registers_in(i.operands[2]), is_raw);
      keeps_raw = !addend.empty() && std::ranges::all_of(addend, is_raw) && !product_raw;
    }
    for (const std::string& d : written_registers(i)) {
      raw.erase(d);
      derived.erase(d);
      if (touches) (keeps_raw ? raw : derived).insert(d);
    }
  }
  return count;
}

}  // namespace kopt::sass::dataflow
