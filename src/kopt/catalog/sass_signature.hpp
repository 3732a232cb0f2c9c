#pragma once
// SASS signatures (data/sass_signatures.toml): which opcodes, with which modifiers, show in
// the machine code that a method is really present — `LDG.E.CONSTANT` for read-only loads,
// `HGMMA` for warpgroup MMA, `SYNCS` for mbarriers. Matched against the opcode histograms of
// the kernel's own functions (SassFunctionProfile, from parsed instructions), never against
// the text of the dump. A method whose change leaves no reliable trace uses the id `none`
// and is reported as not verifiable rather than as present.

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "kopt/sass/sass_profile.hpp"

namespace kopt::catalog {

inline constexpr std::string_view kNotVerifiable = "none";

// "LDG.CONSTANT": an instruction matches when its opcode is LDG and its modifiers include
// CONSTANT, in any order and among any others (LDG.E.128.CONSTANT matches too). A modifier
// written !F32 must be absent: HADD2.!F32 is packed-half arithmetic, not the HADD2.F32 that
// converts a half to float.
struct OpcodePattern {
  std::string text;
  std::string opcode;
  std::vector<std::string> modifiers;
  std::vector<std::string> absent_modifiers;

  static OpcodePattern parse(std::string_view text);
  bool matches(std::string_view opcode_with_modifiers) const;
};

// A structural check on instruction counts in one function: the instructions matching `of`
// are at least `at_least` times those matching `to` (register tiling: FFMA per shared or
// global load). With no `to` instruction at all, any `of` instruction satisfies it.
struct CountRatio {
  std::vector<OpcodePattern> of;
  std::vector<OpcodePattern> to;
  double at_least = 1;
};

// Some loop body of the function (sass_structure.hpp; a function without a loop is one body)
// holds an instruction of every `all` pattern and at least `at_least` matching `of`
// (online softmax: FMNMX and MUFU.EX2 in one loop; unrolling: 8 loads or FP operations).
struct LoopCheck {
  std::vector<OpcodePattern> all;
  std::vector<OpcodePattern> of;
  int at_least = 0;
};

// For one architecture, in one function: every `all` pattern and at least one `any` pattern
// (when listed) match some instruction, no `none` pattern matches any (a method that removes
// something: spills, fp64 math, integer division), the ratio, when listed, holds, and some
// operand reads `constant_bank`, when listed (3: __constant__ data), the loop check holds and
// each listed structural fact (sass_structure.hpp) is at least its number.
struct ArchSignature {
  std::vector<OpcodePattern> any;
  std::vector<OpcodePattern> all;
  std::vector<OpcodePattern> none;
  std::optional<CountRatio> ratio;
  std::optional<int> constant_bank;
  std::optional<LoopCheck> loop;
  std::map<std::string, int> structure;  // fact → at least

  // A canonical text of the whole check: two signatures with the same one cannot tell their
  // methods apart, and the catalog refuses that (see methods_validator).
  std::string canonical() const;
};

struct SassSignature {
  std::string id;
  std::string description;
  std::map<int, ArchSignature> by_arch;  // 80, 90, 100 (sm_XX)

  // The table for `arch` (90 for sm_90 and sm_90a): the highest listed one not above it.
  const ArchSignature* for_arch(int arch) const;
};

struct SignatureTable {
  std::map<std::string, SassSignature> signatures;
  const SassSignature* find(std::string_view id) const;
};

// Throws Error(bad_input) naming the file and the entry for a malformed one.
SignatureTable parse_sass_signatures(std::string_view toml_text, std::string_view file_name);
// data/sass_signatures.toml (embedded, or under $KOPT_DATA_DIR).
SignatureTable load_sass_signatures();

// 90 for "sm_90", "sm_90a", "compute_90"; throws Error(bad_input) for anything else.
int arch_number(std::string_view arch);

// not_distinguishable: the trace is there, but it is also another method's (a transpose
// through shared memory leaves what any shared-memory tile leaves), so it proves nothing.
enum class SignatureStatus { found, missing, not_verifiable, not_distinguishable };

struct SignatureMatch {
  std::string signature;  // the id asked for
  SignatureStatus status = SignatureStatus::not_verifiable;
  std::vector<std::string> evidence;  // "sgemm: LDG.E.CONSTANT ×4" for found; what was looked for otherwise
  std::string reason;                 // why not verifiable, or what is missing
};

// Whether any of `functions` (the kernel's own) carries the signature, for `arch`.
SignatureMatch match_signature(const SignatureTable& table, std::string_view signature_id,
                               const std::vector<sass::SassFunctionProfile>& functions, int arch);

// The same check for a method whose trace is another method's (`not_distinguishable_from`):
// `missing` when the shared trace is absent, else not_distinguishable with the evidence.
SignatureMatch match_shared_trace(const SignatureTable& table, std::string_view signature_id,
                                  std::string_view other_method,
                                  const std::vector<sass::SassFunctionProfile>& functions, int arch);

// "found", "missing", "not_verifiable", "not_distinguishable": the status as JSON writes it.
std::string_view to_string(SignatureStatus status);
void to_json(nlohmann::json& out, const SignatureMatch& match);

}  // namespace kopt::catalog
