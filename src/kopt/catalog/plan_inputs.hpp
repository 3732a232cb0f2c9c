#pragma once
// What the planner reads, assembled one way for `kopt plan` and for the loop's plan step:
// the evidence files of one iteration, and what the user fixed on the command line.

#include <filesystem>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "kopt/catalog/planner.hpp"

namespace kopt::catalog {

struct PlanEvidenceFiles {
  std::filesystem::path profile;   // profile.json
  std::filesystem::path roofline;  // roofline.json
  // history.json; none: no earlier attempts. A document already in memory (the loop's) wins.
  std::optional<std::filesystem::path> history;
  std::optional<nlohmann::json> history_document;
};

struct PlanOverrides {
  std::string arch;                // "sm_90"; empty: the profile's
  std::string dtype;               // empty: the profile's, else fp32
  std::optional<bool> fp32_exact;  // none: exact when the dtype is fp32
};

// Throws input_error naming the file when one is malformed, and when neither the profile
// nor the overrides name an architecture (no silent sm_90: methods depend on it).
PlanInputs read_plan_inputs(const PlanEvidenceFiles& files, const PlanOverrides& overrides);

}  // namespace kopt::catalog
