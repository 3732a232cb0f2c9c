#include "kopt/catalog/sass_signature.hpp"

#include <algorithm>
#include <charconv>
#include <fmt/format.h>
#include <fmt/ranges.h>
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

CountRatio count_ratio(const spec::DataEntry& entry) {
  entry.reject_unknown_keys({"of", "to", "at_least"});
  CountRatio ratio{.of = patterns(entry, "of"), .to = patterns(entry, "to"), .at_least = entry.number("at_least")};
  if (ratio.of.empty() || ratio.to.empty()) throw entry.failure("a ratio needs `of` and `to` opcode patterns");
  if (!(ratio.at_least > 0)) throw entry.failure("a ratio's at_least must be above 0");
  return ratio;
}

LoopCheck loop_check(const spec::DataEntry& entry) {
  entry.reject_unknown_keys({"all", "of", "at_least"});
  LoopCheck loop{.all = patterns(entry, "all"), .of = patterns(entry, "of")};
  if (const std::optional<long long> at_least = entry.optional_integer("at_least")) loop.at_least = static_cast<int>(*at_least);
  if (loop.all.empty() && (loop.of.empty() || loop.at_least < 1)) {
    throw entry.failure("a loop check needs `all` patterns, or `of` patterns with at_least 1 or more");
  }
  return loop;
}

std::map<std::string, int> structure_check(const spec::DataEntry& entry) {
  const std::vector<std::string>& names = sass::structure_fact_names();
  entry.reject_unknown_keys(std::vector<std::string_view>(names.begin(), names.end()));
  std::map<std::string, int> facts;
  for (const std::string& name : names) {
    const std::optional<long long> at_least = entry.optional_integer(name);
    if (!at_least) continue;
    if (*at_least < 1) throw entry.failure(fmt::format("structure fact {} must be at least 1", name));
    facts[name] = static_cast<int>(*at_least);
  }
  return facts;
}

ArchSignature arch_signature(const spec::DataEntry& entry) {
  entry.reject_unknown_keys({"any", "all", "none", "ratio", "constant_bank", "loop", "structure"});
  ArchSignature signature{.any = patterns(entry, "any"), .all = patterns(entry, "all"), .none = patterns(entry, "none")};
  if (const toml::node* ratio = entry.table().get("ratio")) {
    signature.ratio = count_ratio(spec::DataEntry(entry.file(), entry.name() + ".ratio", *ratio));
  }
  if (const std::optional<long long> bank = entry.optional_integer("constant_bank")) {
    if (*bank < 0 || *bank > 17) throw entry.failure("constant_bank must be a bank number, 0 to 17");
    signature.constant_bank = static_cast<int>(*bank);
  }
  if (const toml::node* loop = entry.table().get("loop")) {
    signature.loop = loop_check(spec::DataEntry(entry.file(), entry.name() + ".loop", *loop));
  }
  if (const toml::node* structure = entry.table().get("structure")) {
    signature.structure = structure_check(spec::DataEntry(entry.file(), entry.name() + ".structure", *structure));
  }
  if (signature.any.empty() && signature.all.empty() && signature.none.empty() && !signature.ratio &&
      !signature.constant_bank && !signature.loop && signature.structure.empty()) {
    throw entry.failure("needs `any`, `all`, `none` opcode patterns, a `ratio`, a `constant_bank`, a `loop` or a `structure`");
  }
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

// Instructions of `function` matching any of `patterns`.
int count_matching(const std::vector<OpcodePattern>& patterns, const sass::SassFunctionProfile& function) {
  int count = 0;
  for (const auto& [opcode, n] : function.opcodes_with_modifiers) {
    if (std::ranges::any_of(patterns, [&](const OpcodePattern& p) { return p.matches(opcode); })) count += n;
  }
  return count;
}

std::string pattern_list(const std::vector<OpcodePattern>& patterns, std::string_view joint) {
  std::string text;
  for (const OpcodePattern& p : patterns) text += (text.empty() ? "" : std::string(joint)) + p.text;
  return text;
}

// "FFMA ×256 per LDS+LDG ×46 (at least 2)" when the ratio holds in `function`, else nothing.
std::optional<std::string> ratio_evidence(const CountRatio& ratio, const sass::SassFunctionProfile& function) {
  const int of = count_matching(ratio.of, function);
  const int to = count_matching(ratio.to, function);
  if (of == 0 || static_cast<double>(of) < ratio.at_least * to) return std::nullopt;
  return fmt::format("{} ×{} per {} ×{} (at least {:g})", pattern_list(ratio.of, "+"), of,
                     pattern_list(ratio.to, "+"), to, ratio.at_least);
}

// "a loop body: FMNMX ×4, MUFU.EX2 ×8" for the first body that passes, else nothing.
std::optional<std::string> loop_evidence(const LoopCheck& loop, const sass::SassFunctionProfile& function) {
  const bool unrolled = function.structure.contains("loops") && function.structure.at("loops") == 0;
  for (const sass::OpcodeHistogram& body : function.loop_bodies) {
    const sass::SassFunctionProfile one{.opcodes_with_modifiers = body};
    std::vector<std::string> found;
    const bool every = std::ranges::all_of(loop.all, [&](const OpcodePattern& p) {
      std::vector<std::string> these = matching(p, one);
      found.insert(found.end(), these.begin(), these.end());
      return !these.empty();
    });
    const int of = count_matching(loop.of, one);
    if (!every || of < loop.at_least) continue;
    if (loop.at_least > 0) found.push_back(fmt::format("{} ×{} (at least {})", pattern_list(loop.of, "+"), of, loop.at_least));
    return fmt::format("{} {}", unrolled ? "the function (no loop):" : "a loop body:", fmt::join(found, ", "));
  }
  return std::nullopt;
}

// "loads_before_first_use 8 (at least 4)" per fact, or nothing when one falls short.
std::optional<std::vector<std::string>> structure_evidence(const std::map<std::string, int>& facts,
                                                           const sass::SassFunctionProfile& function) {
  std::vector<std::string> evidence;
  for (const auto& [name, at_least] : facts) {
    const auto it = function.structure.find(name);
    if (it == function.structure.end() || it->second < at_least) return std::nullopt;
    evidence.push_back(fmt::format("{} {} (at least {})", name, it->second, at_least));
  }
  return evidence;
}

// The evidence in `function`, or nothing when the signature is not there.
std::vector<std::string> evidence_in(const ArchSignature& signature, const sass::SassFunctionProfile& function) {
  for (const OpcodePattern& pattern : signature.none) {
    if (!matching(pattern, function).empty()) return {};
  }
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
  // The structural findings lead: they, not the opcodes they count, tell this method apart.
  if (signature.constant_bank) {
    const auto reads = function.constant_bank_reads.find(*signature.constant_bank);
    if (reads == function.constant_bank_reads.end()) return {};
    evidence.insert(evidence.begin(),
                    fmt::format("{} instructions read constant bank {}", reads->second, *signature.constant_bank));
  }
  if (signature.ratio) {
    std::optional<std::string> ratio = ratio_evidence(*signature.ratio, function);
    if (!ratio) return {};
    evidence.insert(evidence.begin(), *ratio);
  }
  if (signature.loop) {
    std::optional<std::string> loop = loop_evidence(*signature.loop, function);
    if (!loop) return {};
    evidence.insert(evidence.begin(), *loop);
  }
  if (!signature.structure.empty()) {
    std::optional<std::vector<std::string>> facts = structure_evidence(signature.structure, function);
    if (!facts) return {};
    evidence.insert(evidence.begin(), facts->begin(), facts->end());
  }
  if (!signature.none.empty()) evidence.push_back("no " + pattern_list(signature.none, ", no "));
  for (std::string& item : evidence) item = function.name + ": " + item;
  return evidence;
}

std::string looked_for(const ArchSignature& signature) {
  std::string text = pattern_list(signature.all, " and ");
  if (!signature.any.empty()) {
    const std::string any = pattern_list(signature.any, " or ");
    text += text.empty() ? any : " and (" + any + ")";
  }
  if (signature.ratio) {
    text += fmt::format("{}{} at least {:g} per {}", text.empty() ? "" : " with ", pattern_list(signature.ratio->of, "+"),
                        signature.ratio->at_least, pattern_list(signature.ratio->to, "+"));
  }
  if (signature.constant_bank) {
    text += fmt::format("{}an operand in constant bank {}", text.empty() ? "" : " with ", *signature.constant_bank);
  }
  if (signature.loop) {
    text += fmt::format("{}a loop body with {}", text.empty() ? "" : " with ", pattern_list(signature.loop->all, " and "));
    if (signature.loop->at_least > 0) {
      text += fmt::format("{}at least {} {}", signature.loop->all.empty() ? "" : " and ", signature.loop->at_least,
                          pattern_list(signature.loop->of, "+"));
    }
  }
  for (const auto& [name, at_least] : signature.structure) {
    text += fmt::format("{}{} at least {}", text.empty() ? "" : " with ", name, at_least);
  }
  if (!signature.none.empty()) text += (text.empty() ? "a function without " : " without ") + pattern_list(signature.none, " or ");
  return text;
}

}  // namespace

OpcodePattern OpcodePattern::parse(std::string_view text) {
  OpcodePattern pattern{.text = std::string(text)};
  std::vector<std::string> parts = split_dots(text);
  for (size_t i = 0; i < parts.size(); ++i) {
    const bool absent = i > 0 && parts[i].starts_with('!');
    const std::string part = absent ? parts[i].substr(1) : parts[i];
    if (!is_pattern_part(part)) {
      throw input_error("opcode pattern \"{}\" must be OPCODE or OPCODE.MODIFIER... in capitals (!MODIFIER: absent)", text);
    }
    if (i == 0) {
      pattern.opcode = part;
    } else {
      (absent ? pattern.absent_modifiers : pattern.modifiers).push_back(part);
    }
  }
  return pattern;
}

bool OpcodePattern::matches(std::string_view opcode_with_modifiers) const {
  const std::vector<std::string> parts = split_dots(opcode_with_modifiers);
  if (parts.front() != opcode) return false;
  auto has = [&](const std::string& m) { return std::find(parts.begin() + 1, parts.end(), m) != parts.end(); };
  return std::ranges::all_of(modifiers, has) && std::ranges::none_of(absent_modifiers, has);
}

std::string ArchSignature::canonical() const {
  auto sorted = [](const std::vector<OpcodePattern>& patterns) {
    std::vector<std::string> texts;
    for (const OpcodePattern& p : patterns) texts.push_back(p.text);
    std::ranges::sort(texts);
    return fmt::format("{}", fmt::join(texts, ","));
  };
  std::string text = fmt::format("any[{}] all[{}] none[{}]", sorted(any), sorted(all), sorted(none));
  if (ratio) text += fmt::format(" ratio[{}/{}>={:g}]", sorted(ratio->of), sorted(ratio->to), ratio->at_least);
  if (constant_bank) text += fmt::format(" bank[{}]", *constant_bank);
  if (loop) text += fmt::format(" loop[{}|{}>={}]", sorted(loop->all), sorted(loop->of), loop->at_least);
  for (const auto& [name, at_least] : structure) text += fmt::format(" {}>={}", name, at_least);
  return text;
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

SignatureMatch match_shared_trace(const SignatureTable& table, std::string_view signature_id,
                                  std::string_view other_method,
                                  const std::vector<sass::SassFunctionProfile>& functions, int arch) {
  SignatureMatch match = match_signature(table, signature_id, functions, arch);
  if (match.status != SignatureStatus::found) return match;
  match.status = SignatureStatus::not_distinguishable;
  match.reason = fmt::format("its trace ({}) is also {}'s: found, but it proves neither", signature_id, other_method);
  return match;
}

std::string_view to_string(SignatureStatus status) {
  switch (status) {
    case SignatureStatus::found: return "found";
    case SignatureStatus::missing: return "missing";
    case SignatureStatus::not_verifiable: return "not_verifiable";
    case SignatureStatus::not_distinguishable: return "not_distinguishable";
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
