#include "kopt/sass/sass_profile.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <optional>
#include <set>

namespace kopt::sass {
namespace {

// Instructions that read or write shared memory. LDGSTS (cp.async), UBLKCP (cp.async.bulk)
// and UTMALDG/UTMASTG (TMA) move data between global and shared memory without registers, so
// they belong here: they are how shared-memory tiling looks on sm_80 and later.
const std::set<std::string, std::less<>> kSharedMemoryOpcodes = {
    "LDS", "STS", "LDSM", "STSM", "ATOMS", "LDGSTS", "UBLKCP", "UTMALDG", "UTMASTG"};

// Tensor-core matrix multiply-accumulate: warp-level mma (sm_70+), warpgroup wgmma (sm_90a:
// HGMMA for f16/bf16/tf32, IGMMA for int8, QGMMA for fp8, BGMMA for binary) and tcgen05.mma
// (sm_100a). The sm_100 names are not yet checked against a captured sm_100 dump.
const std::set<std::string, std::less<>> kTensorOpcodes = {
    "HMMA",  "IMMA",  "DMMA",  "BMMA",    "HGMMA",   "IGMMA",
    "QGMMA", "BGMMA", "UTCHMMA", "UTCIMMA", "UTCQMMA", "UTCOMMA"};

// The access width a load/store modifier states; unsigned/signed byte and half-word loads
// are narrower than the 32-bit default, `.64`/`.128` (and sm_100's `.256`) wider.
std::optional<int> width_bits(const std::string& modifier) {
  if (modifier == "U8" || modifier == "S8") return 8;
  if (modifier == "U16" || modifier == "S16") return 16;
  int bits = 0;
  const char* last = modifier.data() + modifier.size();
  const auto [end, error] = std::from_chars(modifier.data(), last, bits);
  if (error != std::errc() || end != last) return std::nullopt;
  if (bits == 32 || bits == 64 || bits == 128 || bits == 256) return bits;
  return std::nullopt;
}

int access_bits(const Instruction& instruction) {
  for (const std::string& modifier : instruction.modifiers) {
    if (const auto bits = width_bits(modifier)) return *bits;
  }
  return 32;
}

// `BRA 0x1030` at 0x1030: the loop the compiler puts after the last EXIT so that a stray
// program counter never runs into the next function.
bool is_branch_to_itself(const Instruction& instruction) {
  if (instruction.opcode != "BRA" || instruction.predicate || instruction.operands.size() != 1) return false;
  const std::string& target = instruction.operands.front();
  if (!target.starts_with("0x")) return false;
  std::uint64_t address = 0;
  const char* last = target.data() + target.size();
  const auto [end, error] = std::from_chars(target.data() + 2, last, address, 16);
  return error == std::errc() && end == last && address == instruction.address;
}

// How many instructions at the end of the function are alignment padding.
int trailing_padding(const std::vector<Instruction>& instructions) {
  const auto is_nop = [](const Instruction& i) { return i.opcode == "NOP" && !i.predicate; };
  const auto last_code = std::find_if_not(instructions.rbegin(), instructions.rend(), is_nop);
  int padding = static_cast<int>(last_code - instructions.rbegin());
  if (last_code != instructions.rend() && is_branch_to_itself(*last_code)) ++padding;
  return padding;
}

// The banks of `instruction`'s constant operands: 3 for "c[0x3][0x10]" (also inside "-c[0x3][R2]").
std::set<int> constant_banks(const Instruction& instruction) {
  std::set<int> banks;
  for (const std::string& operand : instruction.operands) {
    const size_t at = operand.find("c[0x");
    if (at == std::string::npos) continue;
    int bank = 0;
    const char* first = operand.data() + at + 4;
    const auto [end, error] = std::from_chars(first, operand.data() + operand.size(), bank, 16);
    if (error == std::errc() && end != first && *end == ']') banks.insert(bank);
  }
  return banks;
}

nlohmann::json widths_to_json(const WidthHistogram& widths) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [bits, count] : widths) out[std::to_string(bits)] = count;
  return out;
}

WidthHistogram widths_from_json(const nlohmann::json& in) {
  WidthHistogram widths;
  for (const auto& [bits, count] : in.items()) widths[std::stoi(bits)] = count.get<int>();
  return widths;
}

}  // namespace

const SassFunctionProfile* SassProfile::find(const std::string& name) const {
  const auto it = std::find_if(functions.begin(), functions.end(), [&](const auto& f) { return f.name == name; });
  return it == functions.end() ? nullptr : &*it;
}

SassFunctionProfile profile_function(const SassFunction& function) {
  SassFunctionProfile profile{.name = function.name, .arch = function.arch};
  profile.padding_count = trailing_padding(function.instructions);
  const auto code_end = function.instructions.end() - profile.padding_count;
  for (auto it = function.instructions.begin(); it != code_end; ++it) {
    const Instruction& instruction = *it;
    const std::string full = instruction.full_opcode();
    ++profile.instruction_count;
    ++profile.opcodes[instruction.opcode];
    ++profile.opcodes_with_modifiers[full];
    if (instruction.opcode == "LDG") ++profile.global_load_bits[access_bits(instruction)];
    if (instruction.opcode == "STG") ++profile.global_store_bits[access_bits(instruction)];
    if (instruction.opcode == "LDS") ++profile.shared_load_bits[access_bits(instruction)];
    if (instruction.opcode == "LDGSTS") ++profile.async_copy_bits[access_bits(instruction)];
    for (int bank : constant_banks(instruction)) ++profile.constant_bank_reads[bank];
    if (kSharedMemoryOpcodes.contains(instruction.opcode)) ++profile.shared_memory[full];
    if (kTensorOpcodes.contains(instruction.opcode)) ++profile.tensor[full];
  }
  FunctionStructure structure = analyse_structure(
      std::span<const Instruction>(function.instructions.data(), static_cast<size_t>(code_end - function.instructions.begin())),
      function.arch);
  profile.structure = std::move(structure.facts);
  profile.loop_bodies = std::move(structure.loop_bodies);
  return profile;
}

SassProfile profile_dump(const SassDump& dump) {
  SassProfile profile{.unparsed_line_count = static_cast<int>(dump.unparsed.size())};
  for (const SassFunction& function : dump.functions) profile.functions.push_back(profile_function(function));
  return profile;
}

std::vector<HistogramDelta> diff(const OpcodeHistogram& a, const OpcodeHistogram& b) {
  std::map<std::string, HistogramDelta> rows;
  for (const auto& [opcode, count] : a) rows[opcode].count_a = count;
  for (const auto& [opcode, count] : b) rows[opcode].count_b = count;
  std::vector<HistogramDelta> result;
  for (auto& [opcode, row] : rows) {
    row.opcode = opcode;
    row.delta = row.count_b - row.count_a;
    result.push_back(row);
  }
  return result;
}

void to_json(nlohmann::json& out, const SassFunctionProfile& p) {
  out = {{"name", p.name},
         {"arch", p.arch},
         {"instruction_count", p.instruction_count},
         {"padding_count", p.padding_count},
         {"opcodes", p.opcodes},
         {"opcodes_with_modifiers", p.opcodes_with_modifiers},
         {"global_load_bits", widths_to_json(p.global_load_bits)},
         {"global_store_bits", widths_to_json(p.global_store_bits)},
         {"shared_load_bits", widths_to_json(p.shared_load_bits)},
         {"async_copy_bits", widths_to_json(p.async_copy_bits)},
         {"constant_bank_reads", widths_to_json(p.constant_bank_reads)},
         {"shared_memory", p.shared_memory},
         {"tensor", p.tensor},
         {"structure", p.structure},
         {"loop_bodies", p.loop_bodies}};
}

void from_json(const nlohmann::json& in, SassFunctionProfile& p) {
  p.name = in.at("name");
  p.arch = in.at("arch");
  p.instruction_count = in.at("instruction_count");
  p.padding_count = in.at("padding_count");
  p.opcodes = in.at("opcodes").get<OpcodeHistogram>();
  p.opcodes_with_modifiers = in.at("opcodes_with_modifiers").get<OpcodeHistogram>();
  p.global_load_bits = widths_from_json(in.at("global_load_bits"));
  p.global_store_bits = widths_from_json(in.at("global_store_bits"));
  // Absent from sass.json files of kopt builds before these were counted.
  p.shared_load_bits = widths_from_json(in.value("shared_load_bits", nlohmann::json::object()));
  p.async_copy_bits = widths_from_json(in.value("async_copy_bits", nlohmann::json::object()));
  p.constant_bank_reads = widths_from_json(in.value("constant_bank_reads", nlohmann::json::object()));
  p.shared_memory = in.at("shared_memory").get<OpcodeHistogram>();
  p.tensor = in.at("tensor").get<OpcodeHistogram>();
  // Absent from sass.json files of kopt builds before issue 58's structural facts.
  p.structure = in.value("structure", StructureFacts{});
  p.loop_bodies = in.value("loop_bodies", std::vector<OpcodeHistogram>{});
}

void to_json(nlohmann::json& out, const SassProfile& p) {
  out = {{"functions", p.functions}, {"unparsed_line_count", p.unparsed_line_count}};
}

void from_json(const nlohmann::json& in, SassProfile& p) {
  p.functions = in.at("functions").get<std::vector<SassFunctionProfile>>();
  p.unparsed_line_count = in.at("unparsed_line_count");
}

void to_json(nlohmann::json& out, const HistogramDelta& row) {
  out = {{"opcode", row.opcode}, {"count_a", row.count_a}, {"count_b", row.count_b}, {"delta", row.delta}};
}

}  // namespace kopt::sass
