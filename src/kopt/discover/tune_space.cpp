#include "kopt/discover/tune_space.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cstring>
#include <optional>

#include "kopt/core/file_queries.hpp"
#include "kopt/spec/data_file.hpp"
#include "kopt/core/error.hpp"
#include "kopt/core/files.hpp"
#include "kopt/spec/kernel_signature.hpp"
#include "kopt/spec/source_text.hpp"
#include "kopt/spec/toml.hpp"

namespace kopt::discover {
namespace {

namespace fs = std::filesystem;
using spec::Token;

struct Ladder {
  std::string what;
  std::vector<std::string> names;
  std::vector<long long> values;
};

struct Knowledge {
  std::vector<Ladder> ladders;
  long long factor = 4;
  std::vector<std::string> problem_constants;  // name fragments of the problem's facts, never proposed
  std::vector<CompileOption> compile_options;
};

Knowledge load_knowledge() {
  const toml::table root = spec::load_data_file("data/tune_space.toml");
  Knowledge knowledge;
  for (const toml::node& node : *root["ladders"].as_array()) {
    const toml::table& table = *node.as_table();
    Ladder ladder{.what = table["what"].value_or(std::string())};
    for (const toml::node& name : *table["names"].as_array()) ladder.names.push_back(name.value_or(std::string()));
    for (const toml::node& value : *table["values"].as_array()) ladder.values.push_back(value.value_or(0LL));
    knowledge.ladders.push_back(std::move(ladder));
  }
  knowledge.factor = root["around"]["factor"].value_or(4LL);
  for (const toml::node& name : *root["problem_constants"]["names"].as_array()) {
    knowledge.problem_constants.push_back(name.value_or(std::string()));
  }
  for (const toml::node& node : *root["compile_options"].as_array()) {
    const toml::table& table = *node.as_table();
    CompileOption option{.why = table["why"].value_or(std::string()),
                         .tolerance_dependent = table["tolerance_dependent"].value_or(false),
                         .searched = table["searched"].value_or(true)};
    for (const toml::node& flag : *table["flags"].as_array()) option.flags.push_back(flag.value_or(std::string()));
    knowledge.compile_options.push_back(std::move(option));
  }
  return knowledge;
}

// "64", "64u", "256L": an integer literal (a decimal), else nothing.
std::optional<long long> integer_literal(std::string_view text) {
  while (!text.empty() && std::strchr("uUlL", text.back()) != nullptr) text.remove_suffix(1);
  long long value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || value <= 0) return std::nullopt;
  return value;
}

bool is_power_of_two(long long value) { return value > 0 && (value & (value - 1)) == 0; }

// The ladder the name asks for, else powers of two around a power-of-two value; nothing for
// other values (a 3 or a 1000 is more likely a fixed fact of the problem than a knob).
bool propose(Candidate& candidate, const Knowledge& knowledge) {
  const std::string name = spec::upper_case(candidate.name);
  const auto in_name = [&](const std::string& part) { return name.find(part) != std::string::npos; };
  if (std::ranges::any_of(knowledge.problem_constants, in_name)) return false;
  // One axis of a dim3 is not a block size (16 x 1024 threads do not launch), nor is a grid: powers
  // of two around it, the product held to the limit by the tuner's restrictions (launch_limits.hpp).
  const bool by_use = candidate.name.starts_with("dim3 ") || !candidate.role.empty();
  for (const Ladder& ladder : knowledge.ladders) {
    if (by_use) break;
    if (std::ranges::none_of(ladder.names, in_name)) continue;
    candidate.ladder = ladder.what;
    candidate.proposed = ladder.values;
    if (std::ranges::find(candidate.proposed, candidate.value) == candidate.proposed.end()) {
      candidate.proposed.push_back(candidate.value);
      std::ranges::sort(candidate.proposed);
    }
    return true;
  }
  if (!is_power_of_two(candidate.value) || candidate.value == 1) return false;  // 1: a switch, not a size
  candidate.ladder = fmt::format("powers of two around {}{}", candidate.value,
                                 candidate.role.empty() ? "" : fmt::format(" ({})", candidate.role));
  for (long long value = std::max(1LL, candidate.value / knowledge.factor); value <= candidate.value * knowledge.factor;
       value *= 2) {
    candidate.proposed.push_back(value);
  }
  return true;
}

// #define NAME INT, guarded when the directive before it is #ifndef NAME.
void find_defines(const std::vector<Token>& tokens, std::vector<Candidate>& found) {
  for (std::size_t i = 0; i + 3 < tokens.size(); ++i) {
    if (tokens[i].text != "#" || tokens[i + 1].text != "define" || !tokens[i + 2].is_identifier()) continue;
    if (tokens[i + 3].line != tokens[i].line) continue;
    std::optional<long long> value = integer_literal(tokens[i + 3].text);
    const bool alone = i + 4 >= tokens.size() || tokens[i + 4].line != tokens[i].line;
    if (!value || !alone) continue;
    const bool guarded = i >= 3 && tokens[i - 3].text == "#" && tokens[i - 2].text == "ifndef" &&
                         tokens[i - 1].text == tokens[i + 2].text;
    found.push_back({.name = tokens[i + 2].text,
                     .kind = guarded ? ConstantKind::guarded_define : ConstantKind::define,
                     .value = *value,
                     .line = tokens[i].line,
                     .begin = tokens[i + 3].begin,
                     .end = tokens[i + 3].end});
  }
}

// constexpr TYPE NAME = INT;
void find_constexprs(const std::vector<Token>& tokens, std::vector<Candidate>& found) {
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    if (tokens[i].text != "constexpr") continue;
    std::size_t equals = i + 1;
    while (equals < tokens.size() && equals < i + 6 && tokens[equals].text != "=") ++equals;
    if (equals + 2 >= tokens.size() || tokens[equals].text != "=" || tokens[equals + 2].text != ";") continue;
    std::optional<long long> value = integer_literal(tokens[equals + 1].text);
    if (!value || !tokens[equals - 1].is_identifier()) continue;
    found.push_back({.name = tokens[equals - 1].text, .kind = ConstantKind::constexpr_constant, .value = *value,
                     .line = tokens[i].line, .begin = tokens[equals + 1].begin, .end = tokens[equals + 1].end});
  }
}

// "<<<grid, block>>> block", "dim3 block.y": named so that the block size finds its ladder.
std::string launch_literal_name(std::string_view what, int argument) {
  if (what == "<<<") {
    static constexpr std::array<std::string_view, 4> kLaunchArguments{"grid", "block", "shared bytes", "stream"};
    return fmt::format("<<<>>> {}", kLaunchArguments.at(static_cast<std::size_t>(std::clamp(argument, 1, 4) - 1)));
  }
  return fmt::format("{}.{}", what, "xyz"[std::clamp(argument, 1, 3) - 1]);
}

// Literal arguments of kernel<<<grid, 256>>> and of dim3 block(16, 16).
void find_launch_literals(const std::vector<Token>& tokens, std::vector<Candidate>& found) {
  for (std::size_t i = 0; i + 2 < tokens.size(); ++i) {
    const bool launch = tokens[i].text == "<" && tokens[i + 1].text == "<" && tokens[i + 2].text == "<";
    const bool dim3 = tokens[i].text == "dim3" && i + 2 < tokens.size() && tokens[i + 1].is_identifier() &&
                      tokens[i + 2].text == "(";
    if (!launch && !dim3) continue;
    const std::string what = launch ? "<<<" : fmt::format("dim3 {}", tokens[i + 1].text);
    // The arguments end at ">" (of >>>) or at the ")" closing dim3's; parentheses inside an
    // argument ((n + 255) / 256) are stepped over, and only an argument that is one literal counts.
    const std::string_view end = launch ? ">" : ")";
    int depth = 0;
    int argument = 1;
    for (std::size_t at = i + 3; at < tokens.size() && tokens[at].text != ";"; ++at) {
      const std::string& text = tokens[at].text;
      if (depth == 0 && text == end) break;
      if (text == "(") ++depth;
      if (text == ")") --depth;
      if (depth == 0 && text == ",") ++argument;
      const bool alone = depth == 0 && (tokens[at - 1].text == "," || at == i + 3) && at + 1 < tokens.size() &&
                         (tokens[at + 1].text == "," || tokens[at + 1].text == end);
      if (auto value = integer_literal(text); value && alone) {
        found.push_back({.name = launch_literal_name(what, argument), .kind = ConstantKind::launch_literal,
                         .value = *value, .line = tokens[at].line, .begin = tokens[at].begin, .end = tokens[at].end});
      }
    }
  }
}

// The names a launch's arguments read (`kernel<<<blocks, threads>>>`, `dim3 block(tx, ty)`), each
// with its use: "grid size" for a name that is a launch's whole first argument, "dim3 axis" for
// a whole argument of a dim3 of several axes, else "".
std::vector<std::pair<std::string, std::string>> launch_names(const std::vector<Token>& tokens) {
  std::vector<std::pair<std::string, std::string>> names;
  for (std::size_t i = 0; i + 2 < tokens.size(); ++i) {
    const bool launch = tokens[i].text == "<" && tokens[i + 1].text == "<" && tokens[i + 2].text == "<";
    const bool dim3 = tokens[i].text == "dim3" && tokens[i + 1].is_identifier() && tokens[i + 2].text == "(";
    if (!launch && !dim3) continue;
    std::size_t end = i + 3;
    while (end < tokens.size() && tokens[end].text != ";" && tokens[end].text != ">") ++end;
    const bool several_axes = dim3 && std::any_of(tokens.begin() + static_cast<long>(i + 3),
                                                  tokens.begin() + static_cast<long>(end),
                                                  [](const Token& t) { return t.text == ","; });
    for (std::size_t at = i + 3; at < end; ++at) {
      if (!tokens[at].is_identifier()) continue;
      const bool whole = (at == i + 3 || tokens[at - 1].text == ",") && at + 1 < tokens.size() &&
                         (tokens[at + 1].text == "," || tokens[at + 1].text == ">" || tokens[at + 1].text == ")");
      std::string role;
      if (whole && launch && at == i + 3) role = "grid size";
      if (whole && several_axes) role = "dim3 axis";
      names.emplace_back(tokens[at].text, role);
    }
  }
  return names;
}

// What each candidate is by its use in a launch (launch_names), where that says more than its name.
void mark_roles(const std::vector<Token>& tokens, std::vector<Candidate>& found) {
  const auto read = launch_names(tokens);
  for (Candidate& candidate : found) {
    for (const auto& [name, role] : read) {
      if (name == candidate.name && !role.empty()) candidate.role = role;
    }
  }
}

// `int threads = 256;` (int, unsigned, size_t, const or not) whose name a launch reads: the
// usual way a community kernel writes its block size.
void find_launch_variables(const std::vector<Token>& tokens, std::vector<Candidate>& found) {
  std::vector<std::string> read;
  for (const auto& [name, role] : launch_names(tokens)) read.push_back(name);
  static constexpr std::array<std::string_view, 5> kTypes{"int", "unsigned", "size_t", "long", "uint32_t"};
  for (std::size_t i = 1; i + 3 < tokens.size(); ++i) {
    if (std::ranges::find(kTypes, tokens[i - 1].text) == kTypes.end() || !tokens[i].is_identifier()) continue;
    if (tokens[i + 1].text != "=" || tokens[i + 3].text != ";") continue;
    if (i >= 2 && tokens[i - 2].text == "constexpr") continue;  // find_constexprs has it
    std::optional<long long> value = integer_literal(tokens[i + 2].text);
    if (!value || std::ranges::find(read, tokens[i].text) == read.end()) continue;
    found.push_back({.name = tokens[i].text, .kind = ConstantKind::launch_variable, .value = *value,
                     .line = tokens[i].line, .begin = tokens[i + 2].begin, .end = tokens[i + 2].end});
  }
}

}  // namespace

std::string kind_text(ConstantKind kind) {
  switch (kind) {
    case ConstantKind::guarded_define: return "#ifndef/#define: -D sets it";
    case ConstantKind::define: return "#define without #ifndef: needs a source rewrite";
    case ConstantKind::constexpr_constant: return "constexpr: needs a source rewrite";
    case ConstantKind::launch_literal: return "launch literal: needs a source rewrite";
    case ConstantKind::launch_variable: return "variable a launch reads: needs a source rewrite";
  }
  return "";
}

TuneSpace discover_tune_space_in(std::string_view source, std::string_view file_name) {
  const Knowledge knowledge = load_knowledge();
  const spec::CleanSource clean = spec::clean_source(source);
  const std::vector<Token> tokens = spec::tokenize(clean.code);
  std::vector<Candidate> found;
  find_defines(tokens, found);
  find_constexprs(tokens, found);
  find_launch_literals(tokens, found);
  find_launch_variables(tokens, found);
  mark_roles(tokens, found);
  std::ranges::stable_sort(found, {}, &Candidate::line);
  TuneSpace space{.compile_options = knowledge.compile_options};
  const spec::SourceAnnotations annotations = spec::parse_source_annotations(source, file_name);
  for (const spec::TunableParam& param : annotations.params) space.declared.push_back(param.macro);
  std::vector<std::string> switches;  // kopt:method switches are the ablation's, not the tuner's
  for (const spec::MethodSwitch& method : annotations.methods) switches.push_back(method.macro);
  for (Candidate& candidate : found) {
    if (std::ranges::find(space.declared, candidate.name) != space.declared.end()) continue;
    if (std::ranges::find(switches, candidate.name) != switches.end()) continue;
    if (propose(candidate, knowledge)) space.candidates.push_back(std::move(candidate));
  }
  return space;
}

TuneSpace discover_tune_space(const fs::path& kernel) {
  return discover_tune_space_in(read_file(kernel), kernel.filename().string());
}

std::string tune_table_of(const TuneSpace& space) {
  std::string table;
  for (const Candidate& candidate : space.candidates) {
    if (candidate.settable_by_define()) table += fmt::format("{} = [{}]\n", candidate.name, fmt::join(candidate.proposed, ", "));
  }
  return table;
}

void save_tune_table(const TuneSpace& space, const fs::path& spec_path) {
  const std::string table = tune_table_of(space);
  if (table.empty()) {
    throw input_error("nothing to save: no constant that -D can set (a #define under #ifndef); the others need a "
                      "source rewrite");
  }
  append_tune_table(table, spec_path);
}

void append_tune_table(const std::string& table, const fs::path& spec_path) {
  if (!is_file(spec_path)) {
    throw input_error("{}: no kopt.toml to save [tune] in (write one, or kopt import the problem)", spec_path.string());
  }
  const std::string text = read_file(spec_path);
  toml::table root;
  try {
    root = toml::parse(std::string_view(text), std::string_view(spec_path.string()));
  } catch (const toml::parse_error& bad) {
    throw input_error("{}:{}: {}", spec_path.string(), bad.source().begin.line, bad.description());
  }
  if (root.contains("tune")) {
    throw input_error("{} already has [tune]; edit it by hand", spec_path.string());
  }
  write_file_atomic(spec_path, fmt::format("{}{}\n# proposed by kopt tune-space\n[tune]\n{}", text,
                                           text.ends_with('\n') ? "" : "\n", table));
}

std::vector<CompileOption> searched_compile_options() {
  std::vector<CompileOption> searched;
  for (CompileOption& option : load_knowledge().compile_options) {
    if (option.searched) searched.push_back(std::move(option));
  }
  return searched;
}

std::vector<std::string> compile_option_flags(const std::map<std::string, std::string>& defines) {
  const auto set = defines.find(kCompileOptionMacro);
  if (set == defines.end() || set->second == "0") return {};
  const std::vector<CompileOption> options = searched_compile_options();
  std::size_t place = 0;
  const auto [end, error] = std::from_chars(set->second.data(), set->second.data() + set->second.size(), place);
  if (error != std::errc() || end != set->second.data() + set->second.size() || place < 1 || place > options.size()) {
    throw input_error("{}={} names no compile option (0 for none, 1 to {}: data/tune_space.toml's searched options)",
                      kCompileOptionMacro, set->second, options.size());
  }
  return options[place - 1].flags;
}

}  // namespace kopt::discover
