#include "kopt/spec/python_kernel.hpp"

#include <algorithm>
#include <regex>
#include <vector>

#include "kopt/core/error.hpp"

namespace kopt::spec {
namespace {

// The names a Triton kernel file's entry point may have when the spec names none.
const std::vector<std::string> kDefaultEntries{"solve", "solution"};

struct PythonDef {
  std::string name;
  int line = 0;            // 1-based
  std::string parameters;  // the text between the parentheses
};

std::optional<PythonDef> find_def(std::string_view source, const std::string& name) {
  const std::regex def_line("^def[ \\t]+" + name + "[ \\t]*\\(", std::regex::ECMAScript | std::regex::multiline);
  const std::string text(source);
  std::smatch match;
  if (!std::regex_search(text, match, def_line)) return std::nullopt;
  const auto open = static_cast<std::size_t>(match.position(0) + match.length(0));
  int depth = 1;
  std::size_t end = open;
  for (; end < text.size() && depth > 0; ++end) {
    if (text[end] == '(' || text[end] == '[') ++depth;
    if (text[end] == ')' || text[end] == ']') --depth;
  }
  if (depth != 0) return std::nullopt;
  const int line = 1 + static_cast<int>(std::count(text.begin(), text.begin() + match.position(0), '\n'));
  return PythonDef{name, line, text.substr(open, end - 1 - open)};
}

std::string trimmed(std::string_view text) {
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return {};
  return std::string(text.substr(first, text.find_last_not_of(" \t\r\n") - first + 1));
}

// Parameters split at the top level's commas (a default value may hold brackets).
std::vector<std::string> split_parameters(const std::string& text) {
  std::vector<std::string> parts;
  std::string current;
  int depth = 0;
  for (char c : text) {
    if (c == '(' || c == '[' || c == '{') ++depth;
    if (c == ')' || c == ']' || c == '}') --depth;
    if (c == ',' && depth == 0) {
      parts.push_back(trimmed(current));
      current.clear();
    } else {
      current += c;
    }
  }
  if (!trimmed(current).empty()) parts.push_back(trimmed(current));
  std::erase_if(parts, [](const std::string& part) { return part.empty(); });
  return parts;
}

// "x: \"const float*\" = None" -> "const float* x"
std::string c_declaration(const std::string& parameter, const PythonDef& def, std::string_view file_name) {
  const std::string where = fmt::format("{}:{}: {}()", file_name, def.line, def.name);
  if (parameter.starts_with("*") || parameter == "/") {
    throw input_error("{} takes {}; kopt calls solve with its named parameters only", where, parameter);
  }
  const auto colon = parameter.find(':');
  const std::string name = trimmed(parameter.substr(0, std::min(colon, parameter.find('='))));
  if (colon == std::string::npos) {
    throw input_error("{}: parameter {} has no type annotation; write {}: \"const float*\" (an input), "
                      "\"float*\" (an output) or int / float (a scalar)", where, name, name);
  }
  std::string annotation = trimmed(parameter.substr(colon + 1, parameter.find('=') - colon - 1));
  if (annotation == "int" || annotation == "float") return (annotation == "int" ? "int " : "float ") + name;
  const bool quoted = annotation.size() >= 2 && (annotation.front() == '"' || annotation.front() == '\'') &&
                      annotation.back() == annotation.front();
  if (!quoted) {
    throw input_error("{}: parameter {} is annotated {}, which says no C type; write {}: \"const float*\" (an "
                      "input), \"float*\" (an output) or int / float (a scalar)", where, name, annotation, name);
  }
  return annotation.substr(1, annotation.size() - 2) + " " + name;
}

}  // namespace

bool is_python_kernel(const std::filesystem::path& kernel) { return kernel.extension() == ".py"; }

bool defines_python_solve(std::string_view source) {
  return std::ranges::any_of(kDefaultEntries, [&](const std::string& name) { return find_def(source, name).has_value(); });
}

void refuse_python_kernel(const std::filesystem::path& kernel, std::string_view what) {
  if (!is_python_kernel(kernel)) return;
  throw input_error("{}: {} of a Triton kernel (.py) is not supported yet (docs/triton.md)", kernel.string(), what);
}

std::string python_solve_prototype(std::string_view source, std::string_view file_name,
                                   const std::optional<std::string>& entry) {
  std::optional<PythonDef> def;
  for (const std::string& name : entry ? std::vector<std::string>{*entry} : kDefaultEntries) {
    if ((def = find_def(source, name))) break;
  }
  if (!def) {
    throw input_error("{}: no top-level def {}(...) (a Triton kernel file defines solve with annotated "
                      "parameters, docs/triton.md)", file_name, entry.value_or("solve"));
  }
  std::string declarations;
  for (const std::string& parameter : split_parameters(def->parameters)) {
    declarations += (declarations.empty() ? "" : ", ") + c_declaration(parameter, *def, file_name);
  }
  return std::string(def->line - 1, '\n') + fmt::format("extern \"C\" void {}({});\n", def->name, declarations);
}

}  // namespace kopt::spec
