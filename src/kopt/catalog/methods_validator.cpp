#include "kopt/catalog/methods_validator.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <set>

#include "kopt/catalog/plan_budget.hpp"
#include "kopt/core/error.hpp"

namespace kopt::catalog {
namespace {

using roofline::Axis;

void check_method(const Method& method, const MethodCatalog& catalog, const PlanInputs& inputs, const Facts& facts,
                  std::vector<Violation>& violations) {
  if (auto obstacle = catalog.arch_obstacle(method, inputs.arch)) {
    violations.push_back({method.id, "arch", fmt::format("{}: {} (target sm_{})", method.id, *obstacle, inputs.arch)});
  }
  for (const HistoryEntry& entry : inputs.history) {
    if (entry.id != method.id) continue;
    violations.push_back({method.id, "tried",
                          fmt::format("{}: already tried ({} in iteration {})", method.id, entry.status, entry.iteration)});
  }
  for (const Condition& skip : method.skip) {
    Evaluation evaluation = skip.evaluate(facts);
    if (evaluation.truth != Truth::yes) continue;
    violations.push_back({method.id, "skip", fmt::format("{}: ruled out by skip condition `{}`", method.id, skip.text())});
  }
  for (const HistoryEntry& entry : inputs.history) {
    const Method* kept = catalog.find(entry.id);
    if (entry.status != "effective" || kept == nullptr || !catalog.conflict(method, *kept)) continue;
    violations.push_back({method.id, "conflict",
                          fmt::format("{}: conflicts with {}, kept from iteration {}", method.id, kept->id, entry.iteration)});
  }
}

// Names each claim past its axis's budget, and who spent what it could have borrowed.
void check_budget(const std::vector<const Method*>& methods, const PlanInputs& inputs,
                  std::vector<Violation>& violations) {
  std::array<std::vector<std::string>, 3> claims;
  for (const Method* method : methods) claims[static_cast<size_t>(method->axis)].push_back(method->id);
  for (BudgetBreach& breach : budget_breaches(claims, inputs.roofline)) {
    violations.push_back({std::move(breach.id), "budget", std::move(breach.message)});
  }
}

}  // namespace

std::vector<std::string> parse_methods_json(const nlohmann::json& document, const std::string& file) {
  if (!document.is_object() || !document.contains("methods") || !document["methods"].is_array()) {
    throw input_error("{}: expected {{\"methods\": [...]}}", file);
  }
  std::vector<std::string> ids;
  for (const nlohmann::json& entry : document["methods"]) {
    if (entry.is_string()) ids.push_back(entry.get<std::string>());
    else if (entry.is_object() && entry.contains("id") && entry["id"].is_string()) ids.push_back(entry["id"].get<std::string>());
    else throw input_error("{}: each method must be an id or an object with \"id\", not {}", file, entry.dump());
  }
  return ids;
}

std::vector<Violation> validate_methods(const MethodCatalog& catalog, const std::vector<std::string>& ids,
                                        const PlanInputs& inputs) {
  const Facts facts = plan_facts(inputs);
  std::vector<Violation> violations;
  std::vector<const Method*> methods;
  std::set<std::string> seen;
  for (const std::string& id : ids) {
    const Method* method = catalog.find(id);
    if (method == nullptr) {
      violations.push_back({id, "unknown_id", fmt::format("{}: not a method of data/methods.toml", id)});
      continue;
    }
    if (!seen.insert(id).second) {
      violations.push_back({id, "duplicate", fmt::format("{}: listed twice", id)});
      continue;
    }
    for (const Method* other : methods) {
      if (catalog.conflict(*method, *other)) {
        violations.push_back({id, "conflict", fmt::format("{}: conflicts with {}", id, other->id)});
      }
    }
    check_method(*method, catalog, inputs, facts, violations);
    methods.push_back(method);
  }
  check_budget(methods, inputs, violations);
  return violations;
}

void to_json(nlohmann::json& out, const Violation& violation) {
  out = {{"id", violation.id}, {"rule", violation.rule}, {"message", violation.message}};
}

}  // namespace kopt::catalog
