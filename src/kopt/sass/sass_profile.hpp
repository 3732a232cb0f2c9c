#pragma once
// What a kernel function's machine code is made of: the opcode histogram and the few
// instruction families a performance engineer looks at first — how wide the global loads
// and stores are, whether shared memory and tensor cores are used. Computed from parsed
// instructions only (see sass_parser.hpp), so a function's name can never count as an opcode.

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "kopt/sass/sass_parser.hpp"
#include "kopt/sass/sass_structure.hpp"

namespace kopt::sass {

// Opcode ("FFMA") or opcode with modifiers ("LDG.E.128.CONSTANT") → instructions.
using OpcodeHistogram = std::map<std::string, int>;
// Access width in bits (8, 16, 32, 64, 128, ...) → instructions.
using WidthHistogram = std::map<int, int>;

struct SassFunctionProfile {
  std::string name;
  std::string arch;
  // Excludes the alignment padding after the code (the `BRA` to itself and the NOPs behind
  // it), which the compiler adds to every function and which would otherwise swamp a diff.
  int instruction_count = 0;
  int padding_count = 0;
  OpcodeHistogram opcodes;
  OpcodeHistogram opcodes_with_modifiers;
  WidthHistogram global_load_bits;   // LDG; 32 unless a width modifier says otherwise
  WidthHistogram global_store_bits;  // STG
  WidthHistogram shared_load_bits;   // LDS (LDS.128 reads a float4 of a tile)
  WidthHistogram async_copy_bits;    // LDGSTS (cp.async of 4, 8 or 16 bytes)
  // Constant bank → instructions with an operand in it (c[0x3][...]: nvcc puts __constant__
  // data in bank 3 and kernel parameters in bank 0).
  std::map<int, int> constant_bank_reads;
  OpcodeHistogram shared_memory;     // LDS, STS, LDSM, LDGSTS, ... with their modifiers
  OpcodeHistogram tensor;            // HMMA, IMMA, HGMMA, ... with their modifiers
  // Loops and data-flow facts (sass_structure.hpp): every fact by name, and each loop's body
  // by opcode with modifiers (the whole function as one body when it has no loop).
  StructureFacts structure;
  std::vector<OpcodeHistogram> loop_bodies;
};

struct SassProfile {
  std::vector<SassFunctionProfile> functions;  // in dump order
  int unparsed_line_count = 0;                 // of the dump; nonzero means counts may be short

  const SassFunctionProfile* find(const std::string& name) const;
};

SassFunctionProfile profile_function(const SassFunction& function);
SassProfile profile_dump(const SassDump& dump);

// One row of a histogram comparison; `delta` is count_b - count_a.
struct HistogramDelta {
  std::string opcode;
  int count_a = 0;
  int count_b = 0;
  int delta = 0;
};

// Every opcode present in either histogram, in opcode order, including unchanged ones.
std::vector<HistogramDelta> diff(const OpcodeHistogram& a, const OpcodeHistogram& b);

void to_json(nlohmann::json& out, const SassFunctionProfile& profile);
void from_json(const nlohmann::json& in, SassFunctionProfile& profile);
void to_json(nlohmann::json& out, const SassProfile& profile);
void from_json(const nlohmann::json& in, SassProfile& profile);
void to_json(nlohmann::json& out, const HistogramDelta& row);

}  // namespace kopt::sass
