#pragma once
// The axis budget in words, one source for plan.json and `kopt plan --validate`: where each
// axis's share came from, who may borrow what the others leave unspent, and which claims of a
// methods.json spent it. The rules (docs/catalog.md, skill/SKILL.md):
//   - 3 methods per iteration, split over the axes by their gaps (an axis with a gap under
//     10 % gets none, no axis more than 2);
//   - budget an axis cannot spend (nothing there triggers) goes to the axis that binds the
//     kernel (memory, compute, both for compute_and_memory, latency otherwise), no other;
//   - a triggered method past its axis's budget is passed over as "over_budget".

#include <array>
#include <string>
#include <vector>

#include "kopt/catalog/evidence.hpp"
#include "kopt/roofline/roofline.hpp"

namespace kopt::catalog {

// The axes that receive unspent budget, in the order they take it.
std::vector<roofline::Axis> receiving_axes(const std::string& bound);

// "memory: 1 of the 3 methods, from its 35 % gap; 1 more borrowed from unspent budget".
std::string axis_budget_note(roofline::Axis axis, const RooflineEvidence& roofline, int received);
std::string budget_rules_text();

// Why a triggered method was not chosen when its axis had no budget left.
std::string over_budget_detail(roofline::Axis axis, int budget, int received, const std::vector<std::string>& chosen,
                               const std::string& bound);

struct BudgetBreach {
  std::string id;  // the first claim past what its axis may take
  std::string message;
};

// The claims (method ids by axis, in the order listed) against the budget, borrowing as the
// planner does; one breach per claim that does not fit, naming it and who used the budget.
std::vector<BudgetBreach> budget_breaches(const std::array<std::vector<std::string>, 3>& claims,
                                          const RooflineEvidence& roofline);

}  // namespace kopt::catalog
