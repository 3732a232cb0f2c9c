#include "kopt/spec/tool_arguments.hpp"

#include <algorithm>
#include <cctype>
#include <optional>
#include <regex>
#include <sstream>

#include "kopt/core/embedded_files.hpp"
#include "kopt/core/error.hpp"
#include "kopt/spec/data_file.hpp"
#include "kopt/spec/source_text.hpp"

namespace kopt::spec {
namespace {

struct RefusedArguments {
  std::string characters;
  std::vector<std::string> options;   // exact, or followed by '='
  std::vector<std::string> prefixes;  // any argument starting with one
};

std::vector<std::string> strings_of(const toml::table& table, std::string_view key) {
  std::vector<std::string> values;
  if (const toml::array* array = table[key].as_array()) {
    for (const toml::node& node : *array) values.push_back(node.value_or(std::string()));
  }
  return values;
}

const RefusedArguments& refused() {
  static const RefusedArguments table = [] {
    const toml::table root = load_data_file("data/tool_arguments.toml");
    const toml::table* section = root["refused"].as_table();
    if (section == nullptr) throw Error(ExitCode::environment, "data/tool_arguments.toml: no [refused] table");
    return RefusedArguments{.characters = (*section)["characters"].value_or(std::string()),
                            .options = strings_of(*section, "options"),
                            .prefixes = strings_of(*section, "prefixes")};
  }();
  return table;
}

// "'$'", "a newline", "byte 0x07": how a refused character reads in a message.
std::string describe_character(char c) {
  const auto byte = static_cast<unsigned char>(c);
  if (c == '\n') return "a newline";
  if (c == '\t') return "a tab";
  if (c == ' ') return "a space";
  if (byte < 0x20 || byte == 0x7f) return fmt::format("control byte 0x{:02x}", byte);
  return fmt::format("'{}'", c);
}

// The first character of `text` a shell would treat specially, if any.
std::optional<char> first_refused_character(std::string_view text) {
  const std::string& refused_characters = refused().characters;
  for (char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte == 0x7f || refused_characters.find(c) != std::string::npos) return c;
  }
  return std::nullopt;
}

void check_characters(std::string_view text, std::string_view what, std::string_view where) {
  if (std::optional<char> c = first_refused_character(text)) {
    throw input_error("{}: {} \"{}\" holds {}, which nvcc's shell would interpret; kopt refuses shell "
                      "metacharacters, quotes and whitespace in compiler arguments",
                      where, what, printable(text), describe_character(*c));
  }
}

// The option `part` selects, when it is one that names a program or an output file.
std::optional<std::string> refused_option(std::string_view part) {
  for (const std::string& option : refused().options) {
    if (part == option || (part.starts_with(option) && part.substr(option.size()).starts_with("="))) return option;
  }
  for (const std::string& prefix : refused().prefixes) {
    if (part.starts_with(prefix)) return prefix;
  }
  return std::nullopt;
}

}  // namespace

std::string printable(std::string_view text) {
  std::string shown;
  for (char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte == 0x7f) shown += fmt::format("\\x{:02x}", byte);
    else shown += c;
  }
  return shown;
}

void check_define(std::string_view name, std::string_view value, std::string_view where) {
  if (!is_identifier(name)) {
    throw input_error("{}: define name \"{}\" is not a C identifier (letters, digits and _, not starting with a digit)",
                      where, printable(name));
  }
  check_characters(value, fmt::format("the value of {}", name), where);
}

void check_compiler_flags(const std::vector<std::string>& flags, std::string_view where) {
  for (const std::string& flag : flags) {
    check_characters(flag, "flag", where);
    std::istringstream parts(flag);
    for (std::string part; std::getline(parts, part, ',');) {
      if (std::optional<std::string> option = refused_option(part)) {
        throw input_error("{}: flag \"{}\" uses {}, which chooses a program for nvcc to run or a file for it to "
                          "write; kopt refuses it", where, flag, *option);
      }
    }
  }
}

bool is_sm_arch(std::string_view arch) {
  static const std::regex kArch(R"(sm_[0-9]{2,3}[af]?)");
  return std::regex_match(arch.begin(), arch.end(), kArch);
}

void check_arch(std::string_view arch, std::string_view where) {
  if (!is_sm_arch(arch)) {
    throw input_error("{}: unknown target architecture \"{}\" (expected sm_NN, sm_NNa or sm_NNf, e.g. sm_90a)",
                      where, printable(arch));
  }
}

}  // namespace kopt::spec
