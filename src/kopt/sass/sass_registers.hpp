#pragma once
// The registers an instruction writes and reads, as far as the data-flow facts of
// sass_structure.hpp need them: "R12", "UR4" (RZ and URZ, the zero registers, are none), the
// pair a 64-bit operand names ("R2.64": R2 and R3) and the registers a wide load fills
// (LDG.E.128 R4: R4 to R7). The first operand is written when it is a bare register and the
// instruction is no store; every other register operand is read.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kopt/sass/sass_parser.hpp"

namespace kopt::sass {

// Registers named in one operand: "-R3.reuse" → R3; "desc[UR4][R2.64+0x10]" → UR4, R2, R3.
std::vector<std::string> registers_in(std::string_view operand);

std::vector<std::string> written_registers(const Instruction& instruction);
std::vector<std::string> read_registers(const Instruction& instruction);

// The target of a branch ("BRA 0xd0", "@!P0 BRA 0xd0", "BRA !P2, 0x940"), or nothing.
std::optional<std::uint64_t> branch_target(const Instruction& instruction);

// An immediate operand's value: "0x4", "-0x1", "32"; nothing for registers and constants.
std::optional<std::int64_t> immediate_value(std::string_view operand);

// The register an address operand is based on: "desc[UR4][R2.64+0x10]" → R2, "[R5+UR4]" → R5.
std::optional<std::string> address_register(std::string_view operand);

}  // namespace kopt::sass
