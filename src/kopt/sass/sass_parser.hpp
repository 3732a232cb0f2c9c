#pragma once
// The machine code that `cuobjdump -sass` prints, read into functions and instructions.
// kopt judges whether an optimization is really in a kernel from these parsed opcodes of the
// kernel's own function, never from a text search of the dump: a search for `RED` also finds
// a function named `reduce_...`. A line the parser cannot read is kept, with its number, in
// `unparsed` — never guessed at — so a new cuobjdump layout shows up as a visible gap.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace kopt::sass {

// `@P0` guards an instruction with predicate register P0; `@!PT` with the negation of the
// always-true PT (the compiler's spelling of "never"); uniform predicates are `UP0`..`UPT`.
struct Predicate {
  std::string reg;        // "P0", "PT", "UP1"
  bool negated = false;   // written `@!`
};

struct Instruction {
  std::uint64_t address = 0;               // byte offset within the function (the /*0a30*/ column)
  std::optional<Predicate> predicate;
  std::string opcode;                      // "LDG"
  std::vector<std::string> modifiers;      // "E", "128", "CONSTANT" of LDG.E.128.CONSTANT
  std::vector<std::string> operands;       // as printed: "R4", "desc[UR6][R2.64+0x10]"
  std::string raw;                         // the source line, without its encoding comment
  int line_number = 0;                     // 1-based, in the dump

  // "LDG.E.128.CONSTANT": the opcode joined with its modifiers.
  std::string full_opcode() const;
  bool has_modifier(std::string_view modifier) const;
};

struct SassFunction {
  std::string name;   // as cuobjdump prints it: mangled unless extern "C"
  std::string arch;   // "sm_90", "sm_90a": the target of the ELF image that holds it
  std::vector<Instruction> instructions;  // in address order
};

struct UnparsedLine {
  int line_number = 0;  // 1-based
  std::string text;
};

struct SassDump {
  std::vector<SassFunction> functions;  // in dump order; one name may repeat across ELF images
  std::vector<UnparsedLine> unparsed;

  // The first function of that exact name, or nullptr.
  const SassFunction* find(std::string_view name) const;
};

// Reads the text of `cuobjdump -sass` (one file or a whole fatbinary; sm_50 dual-issue braces
// and the one- or two-line encodings of every generation since).
SassDump parse_cuobjdump_sass(std::string_view text);

void to_json(nlohmann::json& out, const Predicate& predicate);
void to_json(nlohmann::json& out, const Instruction& instruction);
void to_json(nlohmann::json& out, const SassFunction& function);
void to_json(nlohmann::json& out, const UnparsedLine& line);
void to_json(nlohmann::json& out, const SassDump& dump);

}  // namespace kopt::sass
