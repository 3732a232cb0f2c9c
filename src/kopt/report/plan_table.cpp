#include "kopt/report/plan_table.hpp"

#include <fmt/format.h>

namespace kopt::report {
namespace {

std::string values_text(const std::map<std::string, catalog::FactValue>& values) {
  std::string text;
  for (const auto& [name, value] : values) {
    text += fmt::format("{}{}={}", text.empty() ? "" : " ", name, catalog::format_fact(value));
  }
  return text;
}

std::string passed_text(const catalog::PassedOver& p) {
  std::string text = fmt::format("      - {:<36} {}: {}", p.id, p.reason, p.detail);
  if (!p.values.empty() && p.reason != "conflict") text += fmt::format("  [{}]", values_text(p.values));
  if (!p.missing.empty()) {
    std::string missing;
    for (const std::string& name : p.missing) missing += (missing.empty() ? "" : ", ") + name;
    text += fmt::format("  (missing: {})", missing);
  }
  return text + "\n";
}

}  // namespace

std::string format_plan(const catalog::Plan& plan) {
  std::string text = fmt::format("plan for sm_{}: {}\n  {}\n", plan.arch, plan.bound, plan.ceiling);
  if (!plan.note.empty()) text += fmt::format("  note: {}\n", plan.note);
  if (plan.degraded_evidence) text += "  degraded evidence: counter triggers were not used\n";
  for (const catalog::AxisPlan& axis : plan.axes) {
    text += fmt::format("\n  {} (budget {}{}{})\n", roofline::to_string(axis.axis), axis.budget,
                        axis.received > 0 ? fmt::format(", +{} unspent elsewhere", axis.received) : "",
                        axis.unspent > 0 ? fmt::format(", {} unspent", axis.unspent) : "");
    for (const catalog::Chosen& c : axis.chosen) {
      text += fmt::format("    + {:<38} {}\n        because {}  [{}]\n", c.id, c.macro, c.trigger, values_text(c.values));
    }
    if (axis.chosen.empty()) text += "    (no method chosen)\n";
    if (!axis.passed_over.empty()) text += "    passed over:\n";
    for (const catalog::PassedOver& p : axis.passed_over) text += passed_text(p);
  }
  return text;
}

std::string format_violations(const std::vector<catalog::Violation>& violations) {
  std::string text;
  for (const catalog::Violation& v : violations) text += fmt::format("{}: {}\n", v.rule, v.message);
  return text;
}

}  // namespace kopt::report
