#include "kopt/catalog/plan_budget.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>

namespace kopt::catalog {
namespace {

using roofline::Axis;

int percent(double ratio) { return static_cast<int>(std::lround(ratio * 100)); }

std::string names(const std::vector<std::string>& ids) {
  return ids.empty() ? std::string("nothing") : fmt::format("{}", fmt::join(ids, ", "));
}

bool receives(Axis axis, const std::string& bound) {
  const std::vector<Axis> axes = receiving_axes(bound);
  return std::ranges::find(axes, axis) != axes.end();
}

std::string receivers_text(const std::string& bound) {
  std::vector<std::string> axes;
  for (Axis axis : receiving_axes(bound)) axes.emplace_back(roofline::to_string(axis));
  return fmt::format("{}", fmt::join(axes, " and "));
}

}  // namespace

std::vector<Axis> receiving_axes(const std::string& bound) {
  if (bound == "memory") return {Axis::memory};
  if (bound == "compute") return {Axis::compute};
  if (bound == "compute_and_memory") return {Axis::memory, Axis::compute};
  return {Axis::latency};  // latency, small_grid
}

std::string budget_rules_text() {
  return fmt::format("{} methods per iteration, split over the axes in proportion to their gaps (an axis with a gap "
                     "under {} % gets none, no axis more than 2); budget an axis cannot spend goes to the axis that "
                     "binds the kernel, no other; a triggered method past its axis's budget is passed over as "
                     "over_budget",
                     roofline::kBudgetMethods, percent(roofline::kMinBudgetGap));
}

std::string axis_budget_note(Axis axis, const RooflineEvidence& roofline, int received) {
  const double gap = roofline.gaps.of(axis);
  std::string note = gap < roofline::kMinBudgetGap
                         ? fmt::format("0: its gap of {} % is under {} %", percent(gap), percent(roofline::kMinBudgetGap))
                         : fmt::format("{} of the {}, for its gap of {} % against the other axes'", roofline.budget.of(axis),
                                       roofline::kBudgetMethods, percent(gap));
  if (received > 0) note += fmt::format("; {} borrowed from budget other axes left unspent", received);
  else if (receives(axis, roofline.bound)) note += fmt::format("; may borrow unspent budget (bound: {})", roofline.bound);
  return note;
}

std::string over_budget_detail(Axis axis, int budget, int received, const std::vector<std::string>& chosen,
                               const std::string& bound) {
  const std::string axis_name(roofline::to_string(axis));
  if (budget + received == 0) {
    return fmt::format("triggered, but the {} axis has no budget and only the {} axis borrows unspent budget "
                       "(bound: {})", axis_name, receivers_text(bound), bound);
  }
  return fmt::format("triggered, but the {} budget ({} own{}) went to {}", axis_name, budget,
                     received > 0 ? fmt::format(" + {} borrowed", received) : std::string(), names(chosen));
}

std::vector<BudgetBreach> budget_breaches(const std::array<std::vector<std::string>, 3>& claims,
                                          const RooflineEvidence& roofline) {
  int unspent = 0;
  for (Axis axis : roofline::kAxes) {
    unspent += std::max(0, roofline.budget.of(axis) - static_cast<int>(claims[static_cast<size_t>(axis)].size()));
  }
  std::array<int, 3> borrowed{};
  std::vector<std::string> borrowers;
  for (Axis axis : receiving_axes(roofline.bound)) {
    const size_t i = static_cast<size_t>(axis);
    const int over = static_cast<int>(claims[i].size()) - roofline.budget.of(axis);
    borrowed[i] = std::clamp(over, 0, unspent);
    unspent -= borrowed[i];
    for (int k = 0; k < borrowed[i]; ++k) borrowers.push_back(claims[i][static_cast<size_t>(roofline.budget.of(axis) + k)]);
  }
  std::vector<BudgetBreach> breaches;
  for (Axis axis : roofline::kAxes) {
    const size_t i = static_cast<size_t>(axis);
    const size_t allowed = static_cast<size_t>(roofline.budget.of(axis) + borrowed[i]);
    const std::vector<std::string> within(claims[i].begin(), claims[i].begin() + std::min(allowed, claims[i].size()));
    for (size_t k = allowed; k < claims[i].size(); ++k) {
      const std::string axis_name(roofline::to_string(axis));
      std::string why = receives(axis, roofline.bound)
                            ? fmt::format("no unspent budget is left to borrow ({} borrowed it)", names(borrowers))
                            : fmt::format("only the {} axis may borrow unspent budget (bound: {})",
                                          receivers_text(roofline.bound), roofline.bound);
      breaches.push_back({claims[i][k], fmt::format("{}: over the {} budget: it allows {} method(s) ({}), taken by {}; "
                                                    "{}",
                                                    claims[i][k], axis_name, allowed,
                                                    axis_budget_note(axis, roofline, borrowed[i]), names(within), why)});
    }
  }
  return breaches;
}

}  // namespace kopt::catalog
