#include "kopt/sass/sass_parser.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <regex>

namespace kopt::sass {
namespace {

// What cuobjdump prints around the code: the ELF image header block and per-image directives.
// `arch = sm_90` and `code for sm_90` and `.target sm_90` all name the image's architecture.
constexpr std::array<std::string_view, 6> kImageHeaderKeys = {"code version", "host",     "compile_size",
                                                              "identifier",   "producer", "ptxasOptions"};
constexpr std::array<std::string_view, 2> kIgnoredDirectives = {".headerflags", ".elftype"};

// `@!UP1`: the predicate registers are P0..P6, UP0..UP6 and the constant-true PT/UPT.
const std::regex kPredicate(R"(@(!?)(U?P(?:[0-9]+|T)))");
// `LDG.E.128.CONSTANT`, `HGMMA.64x128x16.F32.BF16`: an upper-case mnemonic, then modifiers.
const std::regex kOpcode(R"([A-Z][A-Z0-9_]*(?:\.[A-Za-z0-9_]+)*)");

std::optional<std::uint64_t> parse_hex(std::string_view digits) {
  std::uint64_t value = 0;
  const char* last = digits.data() + digits.size();
  const auto [end, error] = std::from_chars(digits.data(), last, value, 16);
  if (digits.empty() || error != std::errc() || end != last) return std::nullopt;
  return value;
}

std::string_view trim(std::string_view text) {
  const auto first = text.find_first_not_of(" \t\r");
  if (first == std::string_view::npos) return {};
  const auto last = text.find_last_not_of(" \t\r");
  return text.substr(first, last - first + 1);
}

std::vector<std::string> split(std::string_view text, char separator) {
  std::vector<std::string> parts;
  std::size_t begin = 0;
  for (std::size_t end; (end = text.find(separator, begin)) != std::string_view::npos; begin = end + 1) {
    parts.emplace_back(text.substr(begin, end - begin));
  }
  parts.emplace_back(text.substr(begin));
  return parts;
}

// Operands are separated by commas outside brackets (`desc[UR4][R2.64]`, `{R4, R5}` never split).
std::vector<std::string> split_operands(std::string_view text) {
  std::vector<std::string> operands;
  int depth = 0;
  std::size_t begin = 0;
  for (std::size_t i = 0; i <= text.size(); ++i) {
    const char c = i < text.size() ? text[i] : ',';
    if (c == '[' || c == '{' || c == '(') ++depth;
    if (c == ']' || c == '}' || c == ')') --depth;
    if (c != ',' || depth > 0) continue;
    if (auto operand = trim(text.substr(begin, i - begin)); !operand.empty()) operands.emplace_back(operand);
    begin = i + 1;
  }
  return operands;
}

// `/* 0x000fe20000000800 */`: the encoding (or, before Volta, a control word) of an instruction.
bool is_encoding_comment(std::string_view text) {
  text = trim(text);
  if (!text.starts_with("/*") || !text.ends_with("*/")) return false;
  const std::string_view inner = trim(text.substr(2, text.size() - 4));
  return inner.size() > 2 && inner.starts_with("0x") &&
         std::all_of(inner.begin() + 2, inner.end(), [](char c) { return std::isxdigit(static_cast<unsigned char>(c)); });
}

// `LDG.E.128 R4, desc[UR4][R2.64] ;` after the address; dual-issue braces of sm_5x/sm_6x
// (`{ S2R R0, SR_TID.X ;` ... `S2R R2, SR_CTAID.X }`) are part of the scheduling, not the op.
std::optional<Instruction> parse_instruction_text(std::string_view text) {
  text = trim(text);
  if (text.starts_with("{")) text = trim(text.substr(1));
  if (text.ends_with("}")) text = trim(text.substr(0, text.size() - 1));
  if (text.ends_with(";")) text = trim(text.substr(0, text.size() - 1));
  Instruction instruction;
  if (text.starts_with("@")) {
    const std::string token(text.substr(0, text.find_first_of(" \t")));
    std::smatch match;
    if (!std::regex_match(token, match, kPredicate)) return std::nullopt;
    instruction.predicate = Predicate{.reg = match[2].str(), .negated = match[1].length() > 0};
    text = trim(text.substr(token.size()));
  }
  const auto opcode_end = std::min(text.find_first_of(" \t"), text.size());
  const std::string opcode_token(text.substr(0, opcode_end));
  if (!std::regex_match(opcode_token, kOpcode)) return std::nullopt;
  std::vector<std::string> parts = split(opcode_token, '.');
  instruction.opcode = parts.front();
  instruction.modifiers.assign(parts.begin() + 1, parts.end());
  instruction.operands = split_operands(text.substr(opcode_end));
  return instruction;
}

class DumpReader {
 public:
  void read(std::string_view line, int line_number) {
    if (!read_structure(trim(line)) && !read_code(line, line_number)) {
      dump_.unparsed.push_back({line_number, std::string(line)});
    }
  }
  SassDump finish() && { return std::move(dump_); }

 private:
  // Headers, directives and function boundaries; true when the line was one of them.
  bool read_structure(std::string_view line) {
    return read_function_boundary(line) || read_arch(line) || is_image_header(line);
  }

  bool read_function_boundary(std::string_view line) {
    if (!line.empty() && line.find_first_not_of('.') == std::string_view::npos) {  // `..........`
      in_function_ = false;
      return true;
    }
    const auto name = after_prefix(line, "Function :");
    if (!name) return false;
    dump_.functions.push_back({.name = std::string(*name), .arch = arch_});
    in_function_ = true;
    return true;
  }

  bool read_arch(std::string_view line) {
    for (std::string_view prefix : {"arch =", "code for", ".target"}) {
      if (const auto value = after_prefix(line, prefix)) {
        arch_ = std::string(*value);
        return true;
      }
    }
    return false;
  }

  static bool is_image_header(std::string_view line) {
    if (line.empty() || line.starts_with("Fatbin ") || line.find_first_not_of('=') == std::string_view::npos) return true;
    const auto is_key_value = [&](std::string_view key) {
      return line.starts_with(key) && trim(line.substr(key.size())).starts_with("=");
    };
    const auto is_directive = [&](std::string_view name) { return line.starts_with(name); };
    return std::any_of(kImageHeaderKeys.begin(), kImageHeaderKeys.end(), is_key_value) ||
           std::any_of(kIgnoredDirectives.begin(), kIgnoredDirectives.end(), is_directive);
  }

  // An instruction of the open function, or the encoding line under one.
  bool read_code(std::string_view line, int line_number) {
    if (is_encoding_comment(line)) return true;
    std::string_view code = trim(line);
    if (const auto encoding = code.find("/* 0x"); encoding != std::string_view::npos) {
      if (!is_encoding_comment(code.substr(encoding))) return false;
      code = trim(code.substr(0, encoding));
    }
    const auto address_end = code.find("*/");
    if (!in_function_ || !code.starts_with("/*") || address_end == std::string_view::npos) return false;
    const std::optional<std::uint64_t> address = parse_hex(code.substr(2, address_end - 2));
    std::optional<Instruction> instruction = parse_instruction_text(code.substr(address_end + 2));
    if (!address || !instruction) return false;
    instruction->address = *address;
    instruction->raw = std::string(code);
    instruction->line_number = line_number;
    dump_.functions.back().instructions.push_back(std::move(*instruction));
    return true;
  }

  static std::optional<std::string_view> after_prefix(std::string_view line, std::string_view prefix) {
    if (!line.starts_with(prefix)) return std::nullopt;
    const std::string_view value = trim(line.substr(prefix.size()));
    if (value.empty()) return std::nullopt;
    return value;
  }

  SassDump dump_;
  std::string arch_;          // of the ELF image being read
  bool in_function_ = false;  // between `Function :` and `..........`
};

}  // namespace

std::string Instruction::full_opcode() const {
  std::string text = opcode;
  for (const std::string& modifier : modifiers) text += "." + modifier;
  return text;
}

bool Instruction::has_modifier(std::string_view modifier) const {
  return std::find(modifiers.begin(), modifiers.end(), modifier) != modifiers.end();
}

const SassFunction* SassDump::find(std::string_view name) const {
  const auto it = std::find_if(functions.begin(), functions.end(), [&](const SassFunction& f) { return f.name == name; });
  return it == functions.end() ? nullptr : &*it;
}

SassDump parse_cuobjdump_sass(std::string_view text) {
  DumpReader reader;
  int line_number = 0;
  for (const std::string& line : split(text, '\n')) {
    reader.read(line, ++line_number);
  }
  return std::move(reader).finish();
}

void to_json(nlohmann::json& out, const Predicate& p) { out = {{"reg", p.reg}, {"negated", p.negated}}; }

void to_json(nlohmann::json& out, const Instruction& i) {
  out = {{"address", i.address},     {"opcode", i.opcode}, {"modifiers", i.modifiers},
         {"operands", i.operands},   {"raw", i.raw},       {"line_number", i.line_number},
         {"predicate", nullptr}};
  if (i.predicate) out["predicate"] = *i.predicate;
}

void to_json(nlohmann::json& out, const SassFunction& f) {
  out = {{"name", f.name}, {"arch", f.arch}, {"instructions", f.instructions}};
}

void to_json(nlohmann::json& out, const UnparsedLine& line) {
  out = {{"line_number", line.line_number}, {"text", line.text}};
}

void to_json(nlohmann::json& out, const SassDump& dump) {
  out = {{"functions", dump.functions}, {"unparsed", dump.unparsed}};
}

}  // namespace kopt::sass
