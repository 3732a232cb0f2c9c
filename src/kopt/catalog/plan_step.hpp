#pragma once
// `kopt plan` and the loop's plan step: the plan of a folder's evidence, and a methods.json
// checked against the catalog's rules for that evidence. One entry each, so the command and
// the loop cannot answer differently.

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kopt/catalog/method_catalog.hpp"
#include "kopt/catalog/methods_validator.hpp"
#include "kopt/catalog/plan_inputs.hpp"
#include "kopt/catalog/planner.hpp"

namespace kopt::catalog {

// `kopt plan`'s evidence files: each one `given`, else `dir`/profile.json, roofline.json;
// history.json where given, else where `dir` holds one. input_error when neither names a file.
PlanEvidenceFiles plan_evidence_files(const std::filesystem::path& dir, const PlanEvidenceFiles& given);

struct MethodsCheck {
  std::vector<std::string> ids;        // as methods.json lists them
  std::map<std::string, std::string> retries;  // id → what changed, for each method claimed again
  std::vector<Violation> violations;   // empty: the choice keeps every rule
  bool ok() const { return violations.empty(); }
};

// methods.json against the catalog's rules for `inputs`; without evidence (none), only that
// every id is a method of data/methods.toml. Throws input_error for a malformed file.
MethodsCheck check_methods_file(const std::filesystem::path& file, const MethodCatalog& methods,
                                const std::optional<PlanInputs>& inputs);

// `kopt plan --validate --json`'s document (kopt.methods_check/1).
nlohmann::json methods_check_json(const MethodsCheck& check, const std::string& file);

// `kopt plan`'s request: the evidence folder, files given one by one (each empty: the
// folder's), the overrides, and where plan.json goes (empty: DIR/plan.json, else ./plan.json).
struct PlanRequest {
  std::filesystem::path dir;
  PlanEvidenceFiles files;
  PlanOverrides overrides;
  std::filesystem::path out;
};
PlanInputs plan_request_inputs(const PlanRequest& request);

// Plans from the request's evidence and writes plan.json; returns the plan and where it went.
struct WrittenPlan {
  Plan plan;
  std::filesystem::path file;
};
WrittenPlan write_plan(const MethodCatalog& methods, const PlanRequest& request);

// plan.json: the methods the evidence calls for; without evidence, an empty plan that says so.
nlohmann::json plan_document(const MethodCatalog& methods, const std::optional<PlanInputs>& inputs);

}  // namespace kopt::catalog
