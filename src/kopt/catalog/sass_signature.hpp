#pragma once
// SASS signatures (data/sass_signatures.toml): which opcodes, with which modifiers, show in
// the machine code that a method is really present — `LDG.E.CONSTANT` for read-only loads,
// `HGMMA` for warpgroup MMA, `SYNCS` for mbarriers. Matched against the opcode histograms of
// the kernel's own functions (SassFunctionProfile, from parsed instructions), never against
// the text of the dump. A method whose change leaves no reliable trace uses the id `none`
// and is reported as not verifiable rather than as present.

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "kopt/sass/sass_profile.hpp"

namespace kopt::catalog {

inline constexpr std::string_view kNotVerifiable = "none";

// "LDG.CONSTANT": an instruction matches when its opcode is LDG and its modifiers include
// CONSTANT, in any order and among any others (LDG.E.128.CONSTANT matches too).
struct OpcodePattern {
  std::string text;
  std::string opcode;
  std::vector<std::string> modifiers;

  static OpcodePattern parse(std::string_view text);
  bool matches(std::string_view opcode_with_modifiers) const;
};

// For one architecture: every `all` pattern and at least one `any` pattern (when listed) must
// match some instruction of one function.
struct ArchSignature {
  std::vector<OpcodePattern> any;
  std::vector<OpcodePattern> all;
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

enum class SignatureStatus { found, missing, not_verifiable };

struct SignatureMatch {
  std::string signature;  // the id asked for
  SignatureStatus status = SignatureStatus::not_verifiable;
  std::vector<std::string> evidence;  // "sgemm: LDG.E.CONSTANT ×4" for found; what was looked for otherwise
  std::string reason;                 // why not verifiable, or what is missing
};

// Whether any of `functions` (the kernel's own) carries the signature, for `arch`.
SignatureMatch match_signature(const SignatureTable& table, std::string_view signature_id,
                               const std::vector<sass::SassFunctionProfile>& functions, int arch);

// "found", "missing", "not_verifiable": the status as JSON writes it.
std::string_view to_string(SignatureStatus status);
void to_json(nlohmann::json& out, const SignatureMatch& match);

}  // namespace kopt::catalog
