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

// A method tried before is claimed again only with what changed, within the run's bound, and
// never when it is effective (kept in the best: there is nothing to retry).
void check_retry(const Method& method, const PlanInputs& inputs, const std::map<std::string, std::string>& retries,
                 std::vector<Violation>& violations) {
  const HistoryEntry* last = nullptr;
  int tries = 0;
  for (const HistoryEntry& entry : inputs.history) {
    if (entry.id != method.id) continue;
    last = &entry;
    ++tries;
  }
  if (last == nullptr) return;
  const std::string before = fmt::format("{} in iteration {}", last->status, last->iteration);
  if (last->status == "effective") {
    violations.push_back({method.id, "tried", fmt::format("{}: already tried ({}) and kept in the best", method.id, before)});
  } else if (!retries.contains(method.id)) {
    violations.push_back({method.id, "tried",
                          fmt::format("{}: already tried ({}); to try it again, say what changed: "
                                      "{{\"id\": \"{}\", \"{}\": \"...\"}}", method.id, before, method.id, kRetryField)});
  } else if (tries > inputs.retries_per_method) {
    violations.push_back({method.id, "retry_limit",
                          fmt::format("{}: tried {} times in this run ({} last); the run allows {} retry(ies) per method",
                                      method.id, tries, before, inputs.retries_per_method)});
  }
}

void check_method(const Method& method, const MethodCatalog& catalog, const PlanInputs& inputs, const Facts& facts,
                  const std::map<std::string, std::string>& retries, std::vector<Violation>& violations) {
  if (auto obstacle = catalog.arch_obstacle(method, inputs.arch)) {
    violations.push_back({method.id, "arch", fmt::format("{}: {} (target sm_{})", method.id, *obstacle, inputs.arch)});
  }
  check_retry(method, inputs, retries, violations);
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

// Where the evidence puts a claim: its trigger true (0) before unknown (1) before false (2),
// then the catalog's priority. Budget slots go in this order, so that listing a method first
// does not buy it a slot that a method the profile calls for would have had.
std::pair<int, int> evidence_rank(const Method& method, const Facts& facts) {
  const Truth truth = method.trigger.evaluate(facts).truth;
  const int rank = truth == Truth::yes ? 0 : truth == Truth::unknown ? 1 : 2;
  return {rank, method.priority};
}

// Names each claim past its axis's budget, and who spent what it could have borrowed.
void check_budget(std::vector<const Method*> methods, const PlanInputs& inputs, const Facts& facts,
                  std::vector<Violation>& violations) {
  std::ranges::stable_sort(methods, {}, [&](const Method* m) { return evidence_rank(*m, facts); });
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

std::map<std::string, std::string> parse_retries(const nlohmann::json& document, const std::string& file) {
  std::map<std::string, std::string> retries;
  parse_methods_json(document, file);  // the same shape checks, the same messages
  for (const nlohmann::json& entry : document["methods"]) {
    if (!entry.is_object() || !entry.contains(kRetryField)) continue;
    const nlohmann::json& reason = entry[kRetryField];
    if (!reason.is_string()) throw input_error("{}: {}: \"{}\" must be text saying what changed", file, entry["id"].dump(), kRetryField);
    if (!reason.get<std::string>().empty()) retries[entry["id"].get<std::string>()] = reason.get<std::string>();
  }
  return retries;
}

std::vector<Violation> validate_methods(const MethodCatalog& catalog, const std::vector<std::string>& ids,
                                        const PlanInputs& inputs, const std::map<std::string, std::string>& retries) {
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
    check_method(*method, catalog, inputs, facts, retries, violations);
    methods.push_back(method);
  }
  check_budget(methods, inputs, facts, violations);
  return violations;
}

void to_json(nlohmann::json& out, const Violation& violation) {
  out = {{"id", violation.id}, {"rule", violation.rule}, {"message", violation.message}};
}

}  // namespace kopt::catalog
