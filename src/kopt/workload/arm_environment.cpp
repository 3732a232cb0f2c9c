#include "kopt/workload/arm_environment.hpp"

#include <algorithm>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "kopt/core/error.hpp"
#include "kopt/spec/data_file.hpp"

namespace kopt::workload {
namespace {

constexpr std::string_view kRulesFile = "data/workload_env.toml";

const std::string* value_in(const Arm& arm, const std::string& name) {
  for (const auto& [key, value] : arm.env) {
    if (key == name) return &value;
  }
  return nullptr;
}

std::string setting_text(const std::string& name, const std::string* value) {
  return value == nullptr ? fmt::format("leaves {} unset", name) : fmt::format("sets {}={}", name, *value);
}

std::optional<ArmEnvironmentProblem> reserved_problem(const Arm& arm, std::string_view role,
                                                     const ArmEnvironmentRules& rules) {
  for (const auto& [key, value] : arm.env) {
    if (key.starts_with(rules.reserved_prefix)) {
      return ArmEnvironmentProblem{&arm, fmt::format("{} \"{}\" sets {}: kopt sets the {}* variables itself for every run", role, arm.name, key,
                         rules.reserved_prefix)};
    }
  }
  return std::nullopt;
}

std::optional<ArmEnvironmentProblem> difference_problem(const Arm& original, const Arm& candidate,
                                                       const ArmEnvironmentRules& rules) {
  for (const auto& [name, why] : rules.same_in_every_arm) {
    const std::string* theirs = value_in(original, name);
    const std::string* ours = value_in(candidate, name);
    const bool same = (theirs == nullptr) == (ours == nullptr) && (theirs == nullptr || *theirs == *ours);
    if (same) continue;
    return ArmEnvironmentProblem{&candidate, fmt::format("candidate \"{}\" {} where the original {}: {}; set it alike "
                                                         "in every arm, or in none",
                                                         candidate.name, setting_text(name, ours),
                                                         setting_text(name, theirs), why)};
  }
  return std::nullopt;
}

std::vector<std::string> path_entries(const std::string* value) {
  std::vector<std::string> entries;
  if (value == nullptr) return entries;
  std::istringstream in(*value);
  for (std::string entry; std::getline(in, entry, ':');) {
    if (!entry.empty()) entries.push_back(entry);
  }
  return entries;
}

// The first start-up hook in `dir` (a file Python runs from a folder on its path as it starts).
std::optional<std::string> startup_hook_in(const std::filesystem::path& dir, const ArmEnvironmentRules& rules) {
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(dir, error)) {
    const std::string name = entry.path().filename().string();
    const bool named = std::ranges::find(rules.hook_files, name) != rules.hook_files.end();
    const bool by_extension = std::ranges::find(rules.hook_extensions, entry.path().extension().string()) !=
                              rules.hook_extensions.end();
    if (named || by_extension) return name;
  }
  return std::nullopt;
}

std::optional<ArmEnvironmentProblem> startup_hook_problem(const Arm& original, const Arm& candidate,
                                                          const ArmEnvironmentRules& rules,
                                                          const std::filesystem::path& folder) {
  for (const std::string& variable : rules.path_variables) {
    const std::vector<std::string> theirs = path_entries(value_in(original, variable));
    const std::set<std::string> shared(theirs.begin(), theirs.end());
    for (const std::string& entry : path_entries(value_in(candidate, variable))) {
      if (shared.contains(entry)) continue;
      const std::optional<std::string> hook = startup_hook_in(folder / entry, rules);
      if (!hook) continue;
      return ArmEnvironmentProblem{&candidate, fmt::format("candidate \"{}\" puts {} on {}, which holds {}: Python runs "
                                                           "it as it starts, before the workload's own code, where it "
                                                           "could patch the timers the metric comes from; put the folder "
                                                           "on the original's {} too, or leave the file out",
                                                           candidate.name, entry, variable, *hook, variable)};
    }
  }
  return std::nullopt;
}

}  // namespace

ArmEnvironmentRules load_arm_environment_rules() {
  const toml::table root = spec::load_data_file(std::string(kRulesFile));
  ArmEnvironmentRules rules;
  const toml::table& reserved = spec::data_section(root, kRulesFile, "reserved", {"prefix"});
  rules.reserved_prefix = reserved["prefix"].value_or(std::string());
  if (rules.reserved_prefix.empty()) throw environment_error("{}: [reserved] prefix must be a non-empty string", kRulesFile);
  const toml::table* same = root["same_in_every_arm"].as_table();
  if (same == nullptr) throw environment_error("{}: missing [same_in_every_arm]", kRulesFile);
  for (const auto& [key, node] : *same) {
    const std::optional<std::string> why = node.value_exact<std::string>();
    if (!why) throw environment_error("{}: [same_in_every_arm] {} must say why, as a string", kRulesFile, key.str());
    rules.same_in_every_arm.emplace(std::string(key.str()), *why);
  }
  const toml::table& hooks = spec::data_section(root, kRulesFile, "startup_hooks", {"path_variables", "files", "extensions"});
  rules.path_variables = spec::data_strings(hooks, kRulesFile, "startup_hooks", "path_variables");
  rules.hook_files = spec::data_strings(hooks, kRulesFile, "startup_hooks", "files");
  rules.hook_extensions = spec::data_strings(hooks, kRulesFile, "startup_hooks", "extensions");
  return rules;
}

std::optional<ArmEnvironmentProblem> arm_environment_problem(const Arm& original, const std::vector<Arm>& candidates,
                                                             const ArmEnvironmentRules& rules,
                                                             const std::filesystem::path& folder) {
  if (auto problem = reserved_problem(original, "the original", rules)) return problem;
  for (const Arm& candidate : candidates) {
    if (auto problem = reserved_problem(candidate, "candidate", rules)) return problem;
    if (auto problem = difference_problem(original, candidate, rules)) return problem;
    if (auto problem = startup_hook_problem(original, candidate, rules, folder)) return problem;
  }
  return std::nullopt;
}

}  // namespace kopt::workload
