// parse_source_annotations (declared in kernel_signature.hpp): the kopt:param and
// kopt:method comments on #define lines (docs/design.md §1).

#include <algorithm>
#include <cctype>
#include <set>

#include "kopt/core/error.hpp"
#include "kopt/spec/kernel_signature.hpp"
#include "kopt/spec/source_text.hpp"

namespace kopt::spec {
namespace {

std::string_view trim(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  return text;
}

// Splits off the first whitespace-separated word.
std::string_view take_word(std::string_view& text) {
  text = trim(text);
  std::size_t end = 0;
  while (end < text.size() && !std::isspace(static_cast<unsigned char>(text[end]))) ++end;
  std::string_view word = text.substr(0, end);
  text = trim(text.substr(end));
  return word;
}

struct Define {
  std::string macro;
  std::string value;
};

// "#define BM 64" (as written before the comment); nullopt for any other line.
std::optional<Define> read_define(std::string_view code) {
  code = trim(code);
  if (!code.starts_with('#')) return std::nullopt;
  code.remove_prefix(1);
  if (take_word(code) != "define") return std::nullopt;
  std::string_view macro = take_word(code);
  if (!is_identifier(macro)) return std::nullopt;
  return Define{std::string(macro), std::string(code)};
}

class AnnotationReader {
 public:
  AnnotationReader(std::string_view file_name, int line) : file_name_(file_name), line_(line) {}

  // "BM in {32,64,128}"
  TunableParam param(const Define& define, std::string_view rest) const {
    std::string_view name = take_word(rest);
    if (name != define.macro) {
      throw failure(fmt::format("kopt:param names \"{}\" but the #define is {}", name, define.macro));
    }
    if (take_word(rest) != "in" || !rest.starts_with('{') || !rest.ends_with('}')) {
      throw failure(fmt::format("expected \"kopt:param {} in {{v1,v2,...}}\"", define.macro));
    }
    TunableParam param{.macro = define.macro, .default_value = define.value, .values = {}, .line = line_};
    std::string_view list = rest.substr(1, rest.size() - 2);
    while (true) {
      std::size_t comma = std::min(list.find(','), list.size());
      std::string_view value = trim(list.substr(0, comma));
      if (value.empty()) throw failure(fmt::format("kopt:param {} has an empty value", define.macro));
      if (std::ranges::find(param.values, value) != param.values.end()) {
        throw failure(fmt::format("kopt:param {} lists {} twice", define.macro, value));
      }
      param.values.emplace_back(value);
      if (comma == list.size()) break;
      list.remove_prefix(comma + 1);
    }
    return param;
  }

  // "memory.tiling_smem"; the switch must default to 0 or 1 since kopt flips it with -DX=0/1.
  MethodSwitch method(const Define& define, std::string_view rest) const {
    std::string_view id = take_word(rest);
    bool valid_id = !id.empty() && std::ranges::all_of(id, [](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.';
    });
    if (!valid_id || !rest.empty()) {
      throw failure("expected \"kopt:method CATALOG_ID\" (e.g. memory.tiling_smem)");
    }
    if (define.value != "0" && define.value != "1") {
      throw failure(
          fmt::format("method switch {} must default to 0 or 1, not \"{}\"", define.macro, define.value));
    }
    return {.macro = define.macro,
            .method_id = std::string(id),
            .enabled_by_default = define.value == "1",
            .line = line_};
  }

  Error failure(std::string_view what) const { return input_error("{}:{}: {}", file_name_, line_, what); }

 private:
  std::string_view file_name_;
  int line_;
};

}  // namespace

SourceAnnotations parse_source_annotations(std::string_view source, std::string_view file_name) {
  SourceAnnotations annotations;
  std::set<std::string, std::less<>> macros;
  // Defines are read from the cleaned code so that a /* comment */ is not part of a value.
  const CleanSource clean = clean_source(source);
  const std::string_view code = clean.code;
  for (const LineComment& comment : clean.comments) {
    std::string_view text = trim(comment.text);
    while (text.starts_with('/')) text = trim(text.substr(1));  // "/// kopt:..."
    if (!text.starts_with("kopt:")) continue;
    AnnotationReader reader(file_name, comment.line);
    std::size_t line_start = code.rfind('\n', comment.offset);
    line_start = line_start == std::string_view::npos ? 0 : line_start + 1;
    std::optional<Define> define = read_define(code.substr(line_start, comment.offset - line_start));
    std::string_view rest = text.substr(5);
    std::string_view kind = take_word(rest);
    if (kind != "param" && kind != "method") {
      throw reader.failure(
          fmt::format("unknown annotation \"kopt:{}\" (known: kopt:param, kopt:method)", kind));
    }
    if (!define || trim(define->value).empty()) {
      throw reader.failure(
          fmt::format("kopt:{} must follow a #define with a value on the same line "
                      "(#define BM 64  // kopt:param BM in {{32,64,128}})",
                      kind));
    }
    define->value = std::string(trim(define->value));
    if (!macros.insert(define->macro).second) {
      throw reader.failure(fmt::format("{} is annotated twice", define->macro));
    }
    if (kind == "param") {
      annotations.params.push_back(reader.param(*define, rest));
    } else {
      annotations.methods.push_back(reader.method(*define, rest));
    }
  }
  return annotations;
}

}  // namespace kopt::spec
