#include "kopt/spec/source_audit.hpp"

#include <fmt/format.h>

#include <regex>
#include <set>

#include "kopt/core/embedded_files.hpp"
#include "kopt/core/error.hpp"
#include "kopt/core/file_queries.hpp"
#include "kopt/core/files.hpp"
#include "kopt/spec/source_text.hpp"
#include "kopt/spec/data_file.hpp"

namespace kopt::spec {
namespace fs = std::filesystem;

namespace {

constexpr std::string_view kRulesFile = "data/source_audit.toml";

struct AuditRule {
  std::string category;
  std::string what;
  std::regex pattern;
  bool raw = false;     // match the lines with string literals kept (comments still blanked)
  bool python = false;  // a rule for Python kernels (Triton's kernel.py), not for CUDA sources
};

bool is_python_file(const std::string& file_name) { return fs::path(file_name).extension() == ".py"; }

std::vector<AuditRule> load_rules() {
  const toml::table root = load_data_file(std::string(kRulesFile));
  std::vector<AuditRule> rules;
  const toml::array* entries = root["rules"].as_array();
  if (entries == nullptr) throw environment_error("{}: no [[rules]]", kRulesFile);
  for (const toml::node& entry : *entries) {
    const toml::table& rule = *entry.as_table();
    static const std::vector<std::string_view> known = {"category", "what", "pattern", "scope", "language"};
    if (auto key = first_unknown_key(rule, known)) throw input_error("{}: [[rules]]: {}", kRulesFile, unknown_key_text(*key, known));
    const std::string scope = rule["scope"].value_or(std::string("code"));
    const std::string language = rule["language"].value_or(std::string("cuda"));
    if (language != "cuda" && language != "python") {
      throw input_error("{}: [[rules]]: language must be \"cuda\" or \"python\", not \"{}\"", kRulesFile, language);
    }
    rules.push_back({rule["category"].value_or(std::string()), rule["what"].value_or(std::string()),
                     std::regex(rule["pattern"].value_or(std::string()), std::regex::ECMAScript | std::regex::optimize),
                     scope == "raw", language == "python"});
  }
  return rules;
}

const std::vector<AuditRule>& rules() {
  static const std::vector<AuditRule> loaded = load_rules();
  return loaded;
}

std::string trimmed(const std::string& line) {
  const auto first = line.find_first_not_of(" \t");
  if (first == std::string::npos) return "";
  return line.substr(first, line.find_last_not_of(" \t\r") - first + 1);
}

// `#include "x.h"` names of the source (system headers <...> are not audited).
std::vector<std::string> local_includes(std::string_view source) {
  static const std::regex include(R"re(^\s*#\s*include\s*"([^"]+)")re");
  std::vector<std::string> names;
  for (const std::string& line : split_lines(source)) {
    std::smatch match;
    if (std::regex_search(line, match, include)) names.push_back(match[1]);
  }
  return names;
}

// The modules a Python source imports by a plain name (`import helpers`, `from helpers import
// x`), as file names beside it; those that exist there are the kernel's own and are audited.
std::vector<std::string> python_local_imports(std::string_view source) {
  static const std::regex import(R"re(^\s*(?:from\s+\.?(\w+)\s+import\b|import\s+(\w+)\s*$))re");
  std::vector<std::string> names;
  for (const std::string& line : split_lines(clean_python_source(source).code)) {
    std::smatch match;
    if (std::regex_search(line, match, import)) names.push_back((match[1].matched ? match[1] : match[2]).str() + ".py");
  }
  return names;
}

}  // namespace

std::vector<SourceFinding> audit_source(std::string_view source, const std::string& file_name) {
  const bool python = is_python_file(file_name);
  const std::vector<std::string> raw = split_lines(source);
  const CleanSource clean = python ? clean_python_source(source) : clean_source(source);
  const std::vector<std::string> code = split_lines(clean.code);
  const std::vector<std::string> literals = split_lines(clean.without_comments);
  std::vector<SourceFinding> findings;
  std::set<std::pair<std::string, int>> seen;
  for (std::size_t i = 0; i < raw.size(); ++i) {
    for (const AuditRule& rule : rules()) {
      if (rule.python != python) continue;
      const std::vector<std::string>& lines = rule.raw ? literals : code;
      const std::string& line = i < lines.size() ? lines[i] : raw[i];
      if (!std::regex_search(line, rule.pattern)) continue;
      if (!seen.insert({rule.category, static_cast<int>(i) + 1}).second) continue;
      findings.push_back({rule.category, rule.what, file_name, static_cast<int>(i) + 1, trimmed(raw[i])});
    }
  }
  return findings;
}

namespace {

// Calls `visit(source, file)` for the kernel file and each local header it includes, once each.
template <typename Visit>
void for_each_kernel_file(const fs::path& kernel, Visit visit) {
  std::set<fs::path> visited;
  std::vector<fs::path> pending{kernel};
  while (!pending.empty()) {
    const fs::path file = pending.back();
    pending.pop_back();
    if (!visited.insert(resolved_path(file)).second || !is_file(file)) continue;
    const std::string source = read_file(file);
    visit(source, file);
    const bool python = is_python_file(file.filename().string());
    for (const std::string& name : python ? python_local_imports(source) : local_includes(source)) {
      pending.push_back(file.parent_path() / name);
    }
  }
}

struct VaryingOutputsRule {
  std::string what;
  std::regex pattern;
};

const VaryingOutputsRule& varying_outputs_rule() {
  static const VaryingOutputsRule rule = [] {
    const toml::table root = load_data_file(std::string(kRulesFile));
    const toml::table* table = root["varying_outputs"].as_table();
    if (table == nullptr) throw environment_error("{}: no [varying_outputs] table", kRulesFile);
    static const std::vector<std::string_view> known = {"what", "pattern"};
    if (auto key = first_unknown_key(*table, known)) {
      throw input_error("{}: [varying_outputs]: {}", kRulesFile, unknown_key_text(*key, known));
    }
    return VaryingOutputsRule{(*table)["what"].value_or(std::string()),
                              std::regex((*table)["pattern"].value_or(std::string()),
                                         std::regex::ECMAScript | std::regex::optimize)};
  }();
  return rule;
}

}  // namespace

std::vector<SourceFinding> audit_kernel_source(const fs::path& kernel) {
  std::vector<SourceFinding> findings;
  for_each_kernel_file(kernel, [&](const std::string& source, const fs::path& file) {
    for (SourceFinding& f : audit_source(source, file.filename().string())) findings.push_back(std::move(f));
  });
  return findings;
}

std::optional<SourceFinding> varying_outputs_hint(const fs::path& kernel) {
  std::optional<SourceFinding> hint;
  for_each_kernel_file(kernel, [&](const std::string& source, const fs::path& file) {
    if (hint) return;
    const std::vector<std::string> raw = split_lines(source);
    // Comments blanked, string literals kept: inline PTX (asm("red.global.add.f32 ...")) lives in one.
    const bool python = is_python_file(file.filename().string());
    const std::vector<std::string> code =
        split_lines((python ? clean_python_source(source) : clean_source(source)).without_comments);
    for (std::size_t i = 0; i < code.size() && !hint; ++i) {
      if (std::regex_search(code[i], varying_outputs_rule().pattern)) {
        hint = SourceFinding{"varying_outputs", varying_outputs_rule().what, file.filename().string(),
                             static_cast<int>(i) + 1, i < raw.size() ? trimmed(raw[i]) : ""};
      }
    }
  });
  return hint;
}

std::string describe(const SourceFinding& finding) {
  return fmt::format("source audit: {}: {} ({}:{})", finding.category, finding.what, finding.file, finding.line);
}

}  // namespace kopt::spec
