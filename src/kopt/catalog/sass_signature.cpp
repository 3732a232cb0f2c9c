#include "kopt/catalog/sass_signature.hpp"

#include <charconv>
#include <nlohmann/json.hpp>

#include "kopt/core/embedded_files.hpp"
#include "kopt/spec/data_entry.hpp"

namespace kopt::catalog {
namespace {

constexpr std::string_view kFile = "data/sass_signatures.toml";
const std::vector<std::string_view> kArchKeys = {"sm_80", "sm_90", "sm_100"};

bool is_pattern_part(std::string_view part) {
  if (part.empty()) return false;
  for (char c : part) {
    if (!(std::isupper(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) || c == '_')) {
      return false;
    }
  }
  return true;
}

std::vector<std::string> split_dots(std::string_view text) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    const size_t dot = text.find('.', start);
    parts.emplace_back(text.substr(start, dot - start));
    if (dot == std::string_view::npos) return parts;
    start = dot + 1;
  }
}

std::vector<OpcodePattern> patterns(const spec::DataEntry& entry, std::string_view key) {
  std::vector<OpcodePattern> result;
  for (const std::string& text : entry.strings(key)) {
    try {
      result.push_back(OpcodePattern::parse(text));
    } catch (const Error& e) {
      throw entry.failure(e.what());
    }
  }
  return result;
}

ArchSignature arch_signature(const spec::DataEntry& entry) {
  entry.reject_unknown_keys({"any", "all"});
  ArchSignature signature{.any = patterns(entry, "any"), .all = patterns(entry, "all")};
  if (signature.any.empty() && signature.all.empty()) throw entry.failure("needs `any` or `all` opcode patterns");
  return signature;
}

SassSignature signature_of(const spec::DataEntry& entry) {
  std::vector<std::string_view> known = kArchKeys;
  known.push_back("description");
  entry.reject_unknown_keys(known);
  SassSignature signature{.id = entry.name(), .description = entry.string("description")};
  for (std::string_view arch : kArchKeys) {
    const toml::node* node = entry.table().get(arch);
    if (node == nullptr) continue;
    signature.by_arch[arch_number(arch)] = arch_signature(spec::DataEntry(entry.file(), entry.name() + "." + std::string(arch), *node));
  }
  if (signature.by_arch.empty()) throw entry.failure("lists no architecture (sm_80, sm_90, sm_100)");
  return signature;
}

// Instructions of one function that match, as "OPCODE.MODS ×count" strings.
std::vector<std::string> matching(const OpcodePattern& pattern, const sass::SassFunctionProfile& function) {
  std::vector<std::string> found;
  for (const auto& [opcode, count] : function.opcodes_with_modifiers) {
    if (pattern.matches(opcode)) found.push_back(fmt::format("{} ×{}", opcode, count));
  }
  return found;
}

// The evidence in `function`, or nothing when the signature is not there.
std::vector<std::string> evidence_in(const ArchSignature& signature, const sass::SassFunctionProfile& function) {
  std::vector<std::string> evidence;
  for (const OpcodePattern& pattern : signature.all) {
    std::vector<std::string> found = matching(pattern, function);
    if (found.empty()) return {};
    evidence.insert(evidence.end(), found.begin(), found.end());
  }
  bool any_found = signature.any.empty();
  for (const OpcodePattern& pattern : signature.any) {
    std::vector<std::string> found = matching(pattern, function);
    any_found = any_found || !found.empty();
    evidence.insert(evidence.end(), found.begin(), found.end());
  }
  if (!any_found) return {};
  for (std::string& item : evidence) item = function.name + ": " + item;
  return evidence;
}

std::string looked_for(const ArchSignature& signature) {
  std::string text;
  for (const OpcodePattern& p : signature.all) text += (text.empty() ? "" : " and ") + p.text;
  if (!signature.any.empty()) {
    std::string any;
    for (const OpcodePattern& p : signature.any) any += (any.empty() ? "" : " or ") + p.text;
    text += (text.empty() ? "" : " and (") + any + (signature.all.empty() ? "" : ")");
  }
  return text;
}

}  // namespace

OpcodePattern OpcodePattern::parse(std::string_view text) {
  OpcodePattern pattern{.text = std::string(text)};
  std::vector<std::string> parts = split_dots(text);
  for (const std::string& part : parts) {
    if (!is_pattern_part(part)) {
      throw input_error("opcode pattern \"{}\" must be OPCODE or OPCODE.MODIFIER... in capitals", text);
    }
  }
  pattern.opcode = parts.front();
  pattern.modifiers.assign(parts.begin() + 1, parts.end());
  return pattern;
}

bool OpcodePattern::matches(std::string_view opcode_with_modifiers) const {
  const std::vector<std::string> parts = split_dots(opcode_with_modifiers);
  if (parts.front() != opcode) return false;
  return std::ranges::all_of(modifiers, [&](const std::string& m) {
    return std::find(parts.begin() + 1, parts.end(), m) != parts.end();
  });
}

const ArchSignature* SassSignature::for_arch(int arch) const {
  auto it = by_arch.upper_bound(arch);
  return it == by_arch.begin() ? nullptr : &std::prev(it)->second;
}

const SassSignature* SignatureTable::find(std::string_view id) const {
  auto it = signatures.find(std::string(id));
  return it == signatures.end() ? nullptr : &it->second;
}

int arch_number(std::string_view arch) {
  std::string_view digits = arch;
  for (std::string_view prefix : {"sm_", "compute_"}) {
    if (digits.starts_with(prefix)) digits.remove_prefix(prefix.size());
  }
  if (!digits.empty() && (digits.back() == 'a' || digits.back() == 'f')) digits.remove_suffix(1);
  int number = 0;
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), number);
  if (digits.empty() || error != std::errc() || end != digits.data() + digits.size() || arch == digits) {
    throw input_error("unknown architecture \"{}\" (expected sm_XX, e.g. sm_90)", arch);
  }
  return number;
}

SignatureTable parse_sass_signatures(std::string_view toml_text, std::string_view file_name) {
  const toml::table root = spec::parse_data_file(toml_text, file_name);
  SignatureTable table;
  for (const auto& [key, node] : root) {
    if (key.str() == "schema_version") continue;
    spec::DataEntry entry(file_name, std::string(key.str()), node);
    if (key.str() == kNotVerifiable) throw entry.failure("\"none\" is reserved for methods without a signature");
    table.signatures[entry.name()] = signature_of(entry);
  }
  return table;
}

SignatureTable load_sass_signatures() { return parse_sass_signatures(data_file(kFile), kFile); }

SignatureMatch match_signature(const SignatureTable& table, std::string_view signature_id,
                               const std::vector<sass::SassFunctionProfile>& functions, int arch) {
  SignatureMatch match{.signature = std::string(signature_id)};
  if (signature_id == kNotVerifiable) {
    match.reason = "the method leaves no reliable trace in the machine code";
    return match;
  }
  const SassSignature* signature = table.find(signature_id);
  if (signature == nullptr) throw input_error("unknown SASS signature \"{}\" ({})", signature_id, kFile);
  const ArchSignature* for_arch = signature->for_arch(arch);
  if (for_arch == nullptr) {
    match.reason = fmt::format("no signature for sm_{}", arch);
    return match;
  }
  for (const sass::SassFunctionProfile& function : functions) {
    std::vector<std::string> evidence = evidence_in(*for_arch, function);
    match.evidence.insert(match.evidence.end(), evidence.begin(), evidence.end());
  }
  match.status = match.evidence.empty() ? SignatureStatus::missing : SignatureStatus::found;
  if (match.evidence.empty()) match.reason = "no " + looked_for(*for_arch) + " in the kernel's functions";
  return match;
}

std::string_view to_string(SignatureStatus status) {
  switch (status) {
    case SignatureStatus::found: return "found";
    case SignatureStatus::missing: return "missing";
    case SignatureStatus::not_verifiable: return "not_verifiable";
  }
  return "?";
}

void to_json(nlohmann::json& out, const SignatureMatch& match) {
  out = {{"signature", match.signature},
         {"status", to_string(match.status)},
         {"evidence", match.evidence},
         {"reason", match.reason}};
}

}  // namespace kopt::catalog
