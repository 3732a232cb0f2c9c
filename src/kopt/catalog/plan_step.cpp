#include "kopt/catalog/plan_step.hpp"

#include "kopt/catalog/evidence.hpp"
#include "kopt/catalog/planner.hpp"
#include "kopt/core/error.hpp"
#include "kopt/core/file_queries.hpp"
#include "kopt/core/files.hpp"

namespace kopt::catalog {

namespace {

std::filesystem::path given_or_in(const std::filesystem::path& given, const std::filesystem::path& dir, const char* name) {
  if (!given.empty()) return given;
  if (dir.empty()) {
    throw input_error("kopt plan: give a run folder or --{} FILE", std::filesystem::path(name).stem().string());
  }
  return dir / name;
}

}  // namespace

PlanEvidenceFiles plan_evidence_files(const std::filesystem::path& dir, const PlanEvidenceFiles& given) {
  PlanEvidenceFiles files{.profile = given_or_in(given.profile, dir, "profile.json"),
                          .roofline = given_or_in(given.roofline, dir, "roofline.json"),
                          .history = given.history};
  if (!files.history && !dir.empty() && path_exists(dir / "history.json")) files.history = dir / "history.json";
  return files;
}

MethodsCheck check_methods_file(const std::filesystem::path& file, const MethodCatalog& methods,
                                const std::optional<PlanInputs>& inputs) {
  const nlohmann::json document = read_json_file(file);
  MethodsCheck check{.ids = parse_methods_json(document, file.string()), .retries = parse_retries(document, file.string())};
  if (inputs) {
    check.violations = validate_methods(methods, check.ids, *inputs, check.retries);
    return check;
  }
  for (const std::string& id : check.ids) {
    if (methods.find(id) == nullptr) check.violations.push_back({id, "unknown_id", id + ": not a method of data/methods.toml"});
  }
  return check;
}

nlohmann::json methods_check_json(const MethodsCheck& check, const std::string& file) {
  return {{"schema", "kopt.methods_check/1"}, {"file", file}, {"ok", check.ok()}, {"violations", check.violations}};
}

PlanInputs plan_request_inputs(const PlanRequest& request) {
  return read_plan_inputs(plan_evidence_files(request.dir, request.files), request.overrides);
}

WrittenPlan write_plan(const MethodCatalog& methods, const PlanRequest& request) {
  WrittenPlan written{.plan = plan_methods(methods, plan_request_inputs(request)),
                      .file = !request.out.empty()   ? request.out
                              : !request.dir.empty() ? request.dir / "plan.json"
                                                     : std::filesystem::path("plan.json")};
  write_file_atomic(written.file, nlohmann::json(written.plan).dump(2) + "\n");
  return written;
}

nlohmann::json plan_document(const MethodCatalog& methods, const std::optional<PlanInputs>& inputs) {
  if (!inputs) {
    return {{"degraded_evidence", true}, {"note", "no profile evidence: the plan is empty"}, {"axes", nlohmann::json::object()}};
  }
  return plan_methods(methods, *inputs);
}

}  // namespace kopt::catalog
