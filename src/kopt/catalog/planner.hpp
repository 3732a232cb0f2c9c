#pragma once
// The budget-aware priority scan (`kopt plan`): per axis, from the highest priority down, a
// method is passed over when it was already tried, the architecture cannot run it, a skip
// condition holds, it conflicts with a method chosen or kept, or its trigger does not hold
// (or cannot be evaluated for missing metrics); the first that passes is chosen, until the
// axis budget is spent. Methods an axis cannot spend (nothing there applies) go to the axis
// that binds the kernel, so a kernel pinned at a memory ceiling — whose small memory gap
// earned that axis no budget — still gets the memory methods its evidence calls for. The scan
// then goes on to the end of each axis, so every method has its reason, "over_budget" for one
// whose trigger held after the budget was spent; `ranked` lists the chosen, then those.

#include <array>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "kopt/catalog/evidence.hpp"
#include "kopt/catalog/method_catalog.hpp"

namespace kopt::catalog {

struct PlanInputs {
  ProfileEvidence profile;
  RooflineEvidence roofline;
  std::vector<HistoryEntry> history;
  int retries_per_method = kDefaultRetriesPerMethod;  // history.json's bound on claiming a tried method again
  int arch = 90;
  std::optional<bool> fp32_exact;  // nullopt: unknown, and `spec.fp32_exact` is then missing
  std::string dtype;               // "fp32", or empty when unknown
};

struct Chosen {
  std::string id;
  std::string trigger;
  std::map<std::string, FactValue> values;  // what the trigger read
  std::string macro;
  std::string signature;
  std::vector<std::string> change;
  bool spilled = false;  // taken with budget another axis could not spend
};

struct PassedOver {
  std::string id;
  std::string macro;   // its KOPT_USE_... switch: a branch may still claim it (the validator decides)
  std::string reason;  // tried | arch | skip | conflict | trigger_not_met | missing_metrics | over_budget
  std::string detail;  // the condition, the obstacle, the conflicting method
  std::map<std::string, FactValue> values;
  std::set<std::string> missing;
};

struct AxisPlan {
  roofline::Axis axis = roofline::Axis::compute;
  int budget = 0;           // from the roofline
  int received = 0;         // unspent budget moved here from other axes
  int unspent = 0;          // what this axis could not spend
  std::string budget_note;  // where the budget came from, in words
  std::vector<Chosen> chosen;
  std::vector<PassedOver> passed_over;  // every method of the axis not chosen, with its reason
  size_t next = 0;          // where the scan stopped, in this axis's priority order
};

struct Plan {
  std::array<AxisPlan, 3> axes;
  int arch = 0;
  bool degraded_evidence = false;
  std::string bound;
  std::string ceiling;  // a sentence: how close the kernel is to the ceiling that binds it
  std::string note;     // near peak, nothing to do, ...
  // Chosen methods (axes with the larger budget first), then the over-budget ones: the
  // order in which the evidence calls for them.
  std::vector<std::string> ranked;
};

Facts plan_facts(const PlanInputs& inputs);
Plan plan_methods(const MethodCatalog& catalog, const PlanInputs& inputs);

void to_json(nlohmann::json& out, const Plan& plan);

}  // namespace kopt::catalog
