#include "kopt/discover/launch_limits.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <map>
#include <optional>

#include "kopt/core/error.hpp"
#include "kopt/discover/settable_source.hpp"
#include "kopt/discover/tune_space.hpp"
#include "kopt/spec/data_file.hpp"
#include "kopt/spec/expression.hpp"
#include "kopt/spec/source_text.hpp"

namespace kopt::discover {
namespace {

using spec::Token;
using Tokens = std::vector<Token>;
using Definitions = std::map<std::string, Tokens, std::less<>>;

constexpr int kMaxExpansionDepth = 8;  // a #define chain deeper than this is not a launch shape

// What the names of the source mean, as far as a launch shape needs: object-like #defines,
// integer variables initialised once, dim3 declarations (the product of their axes).
struct Source {
  Tokens tokens;
  Definitions definitions;
  std::vector<std::string> params;
};

// tokens[from, to) up to (not including) the first `stop` outside parentheses, brackets and braces.
std::size_t until_top_level(const Tokens& tokens, std::size_t from, std::size_t to, std::string_view stop) {
  int depth = 0;
  for (std::size_t at = from; at < to; ++at) {
    const std::string& text = tokens[at].text;
    if (depth == 0 && text == stop) return at;
    if (text == "(" || text == "[" || text == "{") ++depth;
    if (text == ")" || text == "]" || text == "}") --depth;
    if (depth < 0) return at;
  }
  return to;
}

Tokens slice(const Tokens& tokens, std::size_t from, std::size_t to) {
  return {tokens.begin() + static_cast<long>(from), tokens.begin() + static_cast<long>(std::min(to, tokens.size()))};
}

Tokens parenthesised_product(const std::vector<Tokens>& factors) {
  Tokens product;
  for (const Tokens& factor : factors) {
    if (!product.empty()) product.push_back({.text = "*"});
    product.push_back({.text = "("});
    product.insert(product.end(), factor.begin(), factor.end());
    product.push_back({.text = ")"});
  }
  return product;
}

void add_define(const Tokens& tokens, std::size_t i, Definitions& definitions) {
  const Token& name = tokens[i + 2];
  // A function-like macro (NAME( with no space) is not a value.
  if (i + 3 < tokens.size() && tokens[i + 3].text == "(" && tokens[i + 3].begin == name.end) return;
  std::size_t end = i + 3;
  while (end < tokens.size() && tokens[end].line == name.line) ++end;
  if (end > i + 3) definitions.try_emplace(name.text, slice(tokens, i + 3, end));
}

void add_dim3(const Tokens& tokens, std::size_t i, Definitions& definitions) {
  const std::string close = tokens[i + 2].text == "(" ? ")" : "}";
  const std::size_t end = until_top_level(tokens, i + 3, tokens.size(), close);
  std::vector<Tokens> axes;
  for (std::size_t from = i + 3; from < end;) {
    const std::size_t comma = until_top_level(tokens, from, end, ",");
    axes.push_back(slice(tokens, from, comma));
    from = comma + 1;
  }
  if (!axes.empty()) definitions.try_emplace(tokens[i + 1].text, parenthesised_product(axes));
}

Definitions definitions_of(const Tokens& tokens) {
  static constexpr std::array<std::string_view, 6> kIntegerTypes{"int", "unsigned", "size_t", "long", "uint32_t", "int64_t"};
  Definitions definitions;
  for (std::size_t i = 0; i + 3 < tokens.size(); ++i) {
    if (tokens[i].text == "#" && tokens[i + 1].text == "define" && tokens[i + 2].is_identifier()) {
      add_define(tokens, i, definitions);
    } else if (tokens[i].text == "dim3" && tokens[i + 1].is_identifier() &&
               (tokens[i + 2].text == "(" || tokens[i + 2].text == "{")) {
      add_dim3(tokens, i, definitions);
    } else if (std::ranges::find(kIntegerTypes, tokens[i].text) != kIntegerTypes.end() && tokens[i + 1].is_identifier() &&
               tokens[i + 2].text == "=") {
      const std::size_t end = until_top_level(tokens, i + 3, tokens.size(), ";");
      if (until_top_level(tokens, i + 3, end, ",") == end) definitions.try_emplace(tokens[i + 1].text, slice(tokens, i + 3, end));
    }
  }
  return definitions;
}

// An integer literal without its suffix ("256u" -> "256"); else nothing.
std::optional<std::string> integer_text(const std::string& text) {
  std::string digits = text;
  while (!digits.empty() && std::string_view("uUlL").find(digits.back()) != std::string_view::npos) digits.pop_back();
  if (digits.empty() || !std::ranges::all_of(digits, [](char c) { return c >= '0' && c <= '9'; })) return std::nullopt;
  return digits;
}

struct Expanded {
  std::string text;
  bool reads_param = false;
};

// `tokens` as an expression over the parameters alone, names expanded through their
// definitions; nothing when it reads anything else (a size of the problem, a call, a cast).
std::optional<Expanded> expand(const Source& source, const Tokens& tokens, int depth = 0) {
  static constexpr std::string_view kOperators = "+-*/%()<>=!&|";
  Expanded out;
  for (const Token& token : tokens) {
    std::string piece;
    if (std::ranges::find(source.params, token.text) != source.params.end()) {
      piece = token.text;
      out.reads_param = true;
    } else if (auto number = integer_text(token.text)) {
      piece = *number;
    } else if (token.is_identifier()) {
      const auto definition = source.definitions.find(token.text);
      if (definition == source.definitions.end() || depth >= kMaxExpansionDepth) return std::nullopt;
      std::optional<Expanded> inner = expand(source, definition->second, depth + 1);
      if (!inner) return std::nullopt;
      piece = "(" + inner->text + ")";
      out.reads_param = out.reads_param || inner->reads_param;
    } else if (token.text == "&&" || token.text == "||" ||
               (token.text.size() == 1 && kOperators.find(token.text) != std::string_view::npos)) {
      piece = token.text;
    } else {
      return std::nullopt;
    }
    out.text += (out.text.empty() || piece == "=" ? "" : " ") + piece;
  }
  if (out.text.empty()) return std::nullopt;
  return out;
}

// The restriction `text` over the parameters, when it parses; otherwise the source said
// something kopt does not evaluate, and it restricts nothing.
void add_if_evaluable(std::vector<LaunchRestriction>& found, std::string text, std::string why, int line) {
  try {
    spec::Expression::parse(text);
  } catch (const Error&) {
    return;
  }
  if (std::ranges::find(found, text, &LaunchRestriction::expression) != found.end()) return;  // said twice
  found.push_back({.expression = std::move(text), .why = std::move(why), .line = line});
}

void threads_per_block(const Source& source, const LaunchLimits& limits, std::vector<LaunchRestriction>& found) {
  const Tokens& tokens = source.tokens;
  for (std::size_t i = 0; i + 2 < tokens.size(); ++i) {
    if (tokens[i].text != "<" || tokens[i + 1].text != "<" || tokens[i + 2].text != "<") continue;
    const std::size_t grid_end = until_top_level(tokens, i + 3, tokens.size(), ",");
    const std::size_t end = until_top_level(tokens, grid_end + 1, tokens.size(), ">");
    const std::size_t block_end = until_top_level(tokens, grid_end + 1, end, ",");
    std::optional<Expanded> block = expand(source, slice(tokens, grid_end + 1, block_end));
    if (!block || !block->reads_param) continue;
    add_if_evaluable(found, fmt::format("{} <= {}", block->text, limits.max_threads_per_block),
                     fmt::format("threads per block of the launch on line {}", tokens[i].line), tokens[i].line);
  }
}

// The index one past the brace closing the one at `open`.
std::size_t past_closing_brace(const Tokens& tokens, std::size_t open) {
  int depth = 0;
  for (std::size_t at = open; at < tokens.size(); ++at) {
    if (tokens[at].text == "{") ++depth;
    if (tokens[at].text == "}" && --depth == 0) return at + 1;
  }
  return tokens.size();
}

// `__shared__ TYPE name[a][b];` at `at`: its bytes as an expression; nothing when its type or a
// dimension is not known.
std::optional<Expanded> shared_array_bytes(const Source& source, const LaunchLimits& limits, std::size_t at,
                                           std::size_t end) {
  const Tokens& tokens = source.tokens;
  std::string type;
  std::size_t name = at + 1;
  for (; name + 1 < end && tokens[name + 1].text != "[" && tokens[name + 1].text != ";"; ++name) {
    if (tokens[name].text != "volatile" && tokens[name].text != "const") type += (type.empty() ? "" : " ") + tokens[name].text;
  }
  const auto bytes = limits.type_bytes.find(type);
  if (bytes == limits.type_bytes.end()) return std::nullopt;
  Expanded total{.text = std::to_string(bytes->second)};
  for (std::size_t open = name + 1; open < end && tokens[open].text == "[";) {
    const std::size_t close = until_top_level(tokens, open + 1, end, "]");
    std::optional<Expanded> dimension = expand(source, slice(tokens, open + 1, close));
    if (!dimension) return std::nullopt;
    total.text += " * (" + dimension->text + ")";
    total.reads_param = total.reads_param || dimension->reads_param;
    open = close + 1;
  }
  return total;
}

// Per __global__ function, the sum of its static __shared__ arrays (extern ones are dynamic).
void static_shared_memory(const Source& source, const LaunchLimits& limits, std::vector<LaunchRestriction>& found) {
  const Tokens& tokens = source.tokens;
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    if (tokens[i].text != "__global__") continue;
    std::size_t open = i;
    while (open < tokens.size() && tokens[open].text != "{" && tokens[open].text != ";") ++open;
    if (open == tokens.size() || tokens[open].text == ";") continue;
    const std::size_t end = past_closing_brace(tokens, open);
    std::vector<std::string> arrays;
    bool reads_param = false, known = true;
    for (std::size_t at = open; at < end && known; ++at) {
      if (tokens[at].text != "__shared__" || tokens[at - 1].text == "extern") continue;
      std::optional<Expanded> bytes = shared_array_bytes(source, limits, at, end);
      known = bytes.has_value();
      if (bytes) arrays.push_back(bytes->text), reads_param = reads_param || bytes->reads_param;
    }
    if (!known || !reads_param) continue;
    add_if_evaluable(found, fmt::format("{} <= {}", fmt::join(arrays, " + "), limits.max_static_shared_bytes),
                     fmt::format("static shared memory of the kernel on line {}", tokens[i].line), tokens[i].line);
  }
}

// static_assert(COND, "...") over the parameters: the kernel's own word on what it needs.
void static_asserts(const Source& source, std::vector<LaunchRestriction>& found) {
  const Tokens& tokens = source.tokens;
  for (std::size_t i = 0; i + 1 < tokens.size(); ++i) {
    if (tokens[i].text != "static_assert" || tokens[i + 1].text != "(") continue;
    const std::size_t end = until_top_level(tokens, i + 2, tokens.size(), ")");
    std::optional<Expanded> condition = expand(source, slice(tokens, i + 2, until_top_level(tokens, i + 2, end, ",")));
    if (!condition || !condition->reads_param) continue;
    add_if_evaluable(found, condition->text, fmt::format("the static_assert on line {}", tokens[i].line), tokens[i].line);
  }
}

// for (v = 0; v < A; v += B) with A and B the parameters': the threads cover [0, A) in steps of
// B (a tile loaded BLOCK_ROWS rows at a time), which leaves part of it untouched unless B divides A.
void stride_loops(const Source& source, std::vector<LaunchRestriction>& found) {
  const Tokens& tokens = source.tokens;
  for (std::size_t i = 0; i + 1 < tokens.size(); ++i) {
    if (tokens[i].text != "for" || tokens[i + 1].text != "(") continue;
    const std::size_t end = until_top_level(tokens, i + 2, tokens.size(), ")");
    const std::size_t first = until_top_level(tokens, i + 2, end, ";");
    const std::size_t second = until_top_level(tokens, first + 1, end, ";");
    if (second >= end || first < i + 4 || tokens[first - 1].text != "0" || tokens[first - 2].text != "=") continue;
    const std::string& variable = tokens[first - 3].text;
    const bool below = second > first + 3 && tokens[first + 1].text == variable && tokens[first + 2].text == "<" &&
                       tokens[first + 3].text != "=";
    const bool step = end > second + 4 && tokens[second + 1].text == variable && tokens[second + 2].text == "+" &&
                      tokens[second + 3].text == "=";
    if (!below || !step) continue;
    std::optional<Expanded> bound = expand(source, slice(tokens, first + 3, second));
    std::optional<Expanded> stride = expand(source, slice(tokens, second + 4, end));
    if (!bound || !stride || !bound->reads_param || !stride->reads_param) continue;
    add_if_evaluable(found, fmt::format("({}) % ({}) == 0", bound->text, stride->text),
                     fmt::format("the loop on line {} covers [0, {}) in steps of {}", tokens[i].line, bound->text,
                                 stride->text),
                     tokens[i].line);
  }
}

}  // namespace

LaunchLimits launch_limits() {
  const toml::table root = spec::load_data_file("data/tune_space.toml");
  LaunchLimits limits{.max_threads_per_block = root["launch_limits"]["max_threads_per_block"].value_or(1024LL),
                      .max_static_shared_bytes = root["launch_limits"]["max_static_shared_bytes"].value_or(48LL * 1024)};
  if (const toml::table* types = root["type_bytes"].as_table()) {
    for (const auto& [type, bytes] : *types) limits.type_bytes[std::string(type.str())] = bytes.value_or(0LL);
  }
  return limits;
}

std::vector<LaunchRestriction> launch_restrictions(std::string_view text, const std::vector<std::string>& params,
                                                   const LaunchLimits& limits) {
  Source source{.tokens = spec::tokenize(spec::clean_source(text).code), .params = params};
  source.definitions = definitions_of(source.tokens);
  std::vector<LaunchRestriction> found;
  threads_per_block(source, limits, found);
  static_shared_memory(source, limits, found);
  static_asserts(source, found);
  stride_loops(source, found);
  return found;
}

std::vector<LaunchRestriction> discovered_restrictions(std::string_view source, std::string_view file_name) {
  const std::string settable = settable_source(source, discover_tune_space_in(source, file_name));
  std::vector<std::string> params;
  for (const Candidate& candidate : discover_tune_space_in(settable, file_name).candidates) {
    if (candidate.settable_by_define()) params.push_back(candidate.name);
  }
  return launch_restrictions(settable, params, launch_limits());
}

std::string restrictions_text(const std::vector<LaunchRestriction>& restrictions) {
  if (restrictions.empty()) return "";
  std::string text = "restrictions (lines of the copy kopt compiles; no configuration that breaks one is compiled):\n";
  for (const LaunchRestriction& r : restrictions) text += fmt::format("  {:<48} {}\n", r.expression, r.why);
  return text;
}

}  // namespace kopt::discover
