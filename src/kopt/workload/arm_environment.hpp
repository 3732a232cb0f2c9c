#pragma once
// What the arms of a workload may not use their environment to change (data/workload_env.toml):
// kopt's own per-run variables, and those that choose the GPU a run gets, how the GPU or the
// runtime runs it, or what is loaded into it before the workload's code. A candidate that ran
// on another GPU, or an original slowed by a debugging mode, would be measured as a gain.

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "kopt/workload/workload_spec.hpp"

namespace kopt::workload {

struct ArmEnvironmentRules {
  std::string reserved_prefix;                     // kopt's own: no arm may set one
  std::map<std::string, std::string> same_in_every_arm;  // name → why it must not differ
  // Python's start-up hooks: a folder a candidate adds to one of path_variables may hold no file
  // named as in hook_files nor ending as in hook_extensions.
  std::vector<std::string> path_variables, hook_files, hook_extensions;
};

// data/workload_env.toml.
ArmEnvironmentRules load_arm_environment_rules();

struct ArmEnvironmentProblem {
  const Arm* arm = nullptr;  // the arm that breaks the rule
  std::string text;          // one line: the arm, the variable and why
};

// The first rule the arms break; nothing when they keep every rule. `candidates` are compared
// with `original`; a relative folder on a path variable is the workload's `folder`'s.
std::optional<ArmEnvironmentProblem> arm_environment_problem(const Arm& original, const std::vector<Arm>& candidates,
                                                             const ArmEnvironmentRules& rules,
                                                             const std::filesystem::path& folder);

}  // namespace kopt::workload
