#include "kopt/catalog/planner.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <functional>
#include <cmath>

#include "kopt/catalog/plan_budget.hpp"

namespace kopt::catalog {
namespace {

using roofline::Axis;

struct Scan {
  const MethodCatalog& catalog;
  const PlanInputs& inputs;
  const Facts& facts;
  std::vector<const Method*> kept;  // chosen now, or effective in an earlier iteration
};

std::vector<const Method*> axis_methods(const MethodCatalog& catalog, Axis axis) {
  std::vector<const Method*> methods;
  for (const Method& method : catalog.methods) {
    if (method.axis == axis) methods.push_back(&method);
  }
  return methods;  // already in priority order
}

const HistoryEntry* tried(const std::vector<HistoryEntry>& history, const std::string& id) {
  for (const HistoryEntry& entry : history) {
    if (entry.id == id) return &entry;
  }
  return nullptr;
}

// Why `method` is passed over, or nullopt when it is chosen (then `chosen` is filled).
std::optional<PassedOver> judge(const Method& method, Scan& scan, Chosen& chosen) {
  PassedOver passed{.id = method.id, .macro = method.macro};
  if (const HistoryEntry* entry = tried(scan.inputs.history, method.id)) {
    passed.reason = "tried";
    passed.detail = fmt::format("{} in iteration {}", entry->status, entry->iteration);
    return passed;
  }
  if (auto obstacle = scan.catalog.arch_obstacle(method, scan.inputs.arch)) {
    passed.reason = "arch";
    passed.detail = *obstacle;
    return passed;
  }
  for (const Condition& skip : method.skip) {
    Evaluation evaluation = skip.evaluate(scan.facts);
    if (evaluation.truth != Truth::yes) continue;
    passed.reason = "skip";
    passed.detail = skip.text();
    passed.values = evaluation.used;
    return passed;
  }
  for (const Method* other : scan.kept) {
    if (!scan.catalog.conflict(method, *other)) continue;
    passed.reason = "conflict";
    passed.detail = other->id;
    return passed;
  }
  Evaluation trigger = method.trigger.evaluate(scan.facts);
  if (trigger.truth != Truth::yes) {
    passed.reason = trigger.truth == Truth::unknown ? "missing_metrics" : "trigger_not_met";
    passed.detail = method.trigger.text();
    passed.values = trigger.used;
    passed.missing = trigger.missing;
    return passed;
  }
  chosen = Chosen{.id = method.id, .trigger = method.trigger.text(), .values = trigger.used, .macro = method.macro,
                  .signature = method.signature, .change = method.change};
  return std::nullopt;
}

// Scans on from where this axis stopped until `count` more methods are chosen or the axis runs out.
void scan_axis(AxisPlan& plan, int count, bool spilled, Scan& scan) {
  const std::vector<const Method*> methods = axis_methods(scan.catalog, plan.axis);
  int taken = 0;
  while (taken < count && plan.next < methods.size()) {
    const Method& method = *methods[plan.next++];
    Chosen chosen;
    if (std::optional<PassedOver> passed = judge(method, scan, chosen)) {
      plan.passed_over.push_back(std::move(*passed));
      continue;
    }
    chosen.spilled = spilled;
    plan.chosen.push_back(std::move(chosen));
    scan.kept.push_back(&method);
    ++taken;
  }
}

// Past the budget: every method left gets its reason, over_budget when it would have been chosen.
void finish_axis(AxisPlan& plan, const std::string& bound, Scan& scan) {
  const std::vector<const Method*> methods = axis_methods(scan.catalog, plan.axis);
  std::vector<std::string> chosen_ids;
  for (const Chosen& c : plan.chosen) chosen_ids.push_back(c.id);
  for (; plan.next < methods.size(); ++plan.next) {
    Chosen chosen;
    std::optional<PassedOver> passed = judge(*methods[plan.next], scan, chosen);
    if (!passed) {
      passed = PassedOver{.id = chosen.id, .macro = chosen.macro, .reason = "over_budget",
                          .detail = over_budget_detail(plan.axis, plan.budget, plan.received, chosen_ids, bound),
                          .values = chosen.values};
    }
    plan.passed_over.push_back(std::move(*passed));
  }
}

std::vector<std::string> ranked_methods(const Plan& plan) {
  std::vector<const AxisPlan*> axes;
  for (const AxisPlan& axis : plan.axes) axes.push_back(&axis);
  std::ranges::stable_sort(axes, std::greater<>(), [](const AxisPlan* a) { return a->budget + a->received; });
  std::vector<std::string> ranked;
  for (const AxisPlan* axis : axes) {
    for (const Chosen& c : axis->chosen) ranked.push_back(c.id);
  }
  for (const AxisPlan* axis : axes) {
    for (const PassedOver& p : axis->passed_over) {
      if (p.reason == "over_budget") ranked.push_back(p.id);
    }
  }
  return ranked;
}

// Where a ceiling came from, as the sentence says it.
std::string_view ceiling_origin(roofline::PeaksSource source) {
  return source == roofline::PeaksSource::measured ? "measured by kopt doctor --peaks" : "from the datasheet";
}

// "SM throughput 77 %, FLOP rate 67 % of the measured FP32 ceiling": the two readings a
// utilization is the larger of, each named, the one that gave it first. The throughput is
// left out where the roofline.json predates it.
std::string readings_text(double throughput, const char* throughput_name, double rate, const char* rate_name,
                          std::string_view origin, bool throughput_known) {
  auto percent = [](double ratio) { return static_cast<int>(std::lround(ratio * 100)); };
  const std::string by_rate = fmt::format("{} {} % of the ceiling ({})", rate_name, percent(rate), origin);
  if (!throughput_known) return by_rate;
  const std::string by_throughput = fmt::format("Nsight Compute's {} {} %", throughput_name, percent(throughput));
  return throughput > rate ? by_throughput + "; " + by_rate : by_rate + "; " + by_throughput;
}

// " Most stalled cycles (45 %) are warps not selected: ..." when the largest stall share is
// stall_not_selected: the scheduler had another ready warp and issued it, so the kernel is
// issue-bound, which the latency gap (latency stalls only) no longer counts; else empty.
std::string issue_saturation_text(const ProfileEvidence& profile) {
  std::optional<double> not_selected;
  double largest_other = 0;
  for (const auto& [name, value] : profile.concepts) {
    if (!name.starts_with("stall_") || !value) continue;
    if (name == "stall_not_selected") not_selected = *value;
    else largest_other = std::max(largest_other, *value);
  }
  if (!not_selected || *not_selected <= largest_other) return "";
  return fmt::format(" The largest stall ({} % of a warp's cycles) is stall_not_selected: another ready warp was "
                     "issued instead, so issue slots are saturated; that is no latency, and no part of the latency gap.",
                     static_cast<int>(std::lround(*not_selected * 100)));
}

// The roofline's readings; for a roofline.json written before it kept the throughputs, the
// profile's own sm_throughput and memory_throughput concepts (the same Nsight Compute metrics).
UtilizationReadings readings_of(const PlanInputs& inputs) {
  UtilizationReadings u = inputs.roofline.readings;
  const auto& c = inputs.profile.concepts;
  const auto sm = c.find("sm_throughput"), memory = c.find("memory_throughput");
  if (!u.throughputs_known && sm != c.end() && sm->second && memory != c.end() && memory->second) {
    u.sm_throughput = *sm->second;
    u.memory_throughput = *memory->second;
    u.throughputs_known = true;
  }
  return u;
}

std::string ceiling_text(const PlanInputs& inputs) {
  const RooflineEvidence& r = inputs.roofline;
  const UtilizationReadings u = readings_of(inputs);
  auto percent = [](double ratio) { return static_cast<int>(std::lround(ratio * 100)); };
  const std::string compute = readings_text(u.sm_throughput, "SM throughput (its busiest pipe)", u.flop_ratio,
                                            "FLOP rate", ceiling_origin(r.sources.flop_peak), u.throughputs_known);
  const std::string memory =
      readings_text(u.memory_throughput, "memory throughput (the busiest of DRAM, L2, L1, shared)", u.dram_bytes_ratio,
                    "DRAM byte rate", ceiling_origin(r.sources.bytes_peak), u.throughputs_known);
  if (r.bound == "memory" || r.bound == "compute_and_memory") {
    std::string text = fmt::format("memory-bound at {} % of the nearest memory ceiling ({} % headroom): {}",
                                   percent(r.memory_utilization), 100 - percent(r.memory_utilization), memory);
    auto dram = inputs.profile.concepts.find("dram_throughput");
    if (dram != inputs.profile.concepts.end() && dram->second) {
      text += fmt::format("; DRAM throughput {} % of peak", percent(*dram->second));
    }
    return text + ".";
  }
  if (r.bound == "compute") {
    return fmt::format("compute-bound at {} % of the nearest compute ceiling: {}.", percent(r.compute_utilization), compute);
  }
  return fmt::format("{}-bound: compute at {} % ({}), memory at {} % ({}) of their nearest ceilings.", r.bound,
                     percent(r.compute_utilization), compute, percent(r.memory_utilization), memory);
}

std::string ceiling_sentence(const PlanInputs& inputs) {
  return ceiling_text(inputs) + issue_saturation_text(inputs.profile);
}

}  // namespace

Facts plan_facts(const PlanInputs& inputs) {
  Facts facts;
  if (!inputs.profile.degraded) {
    for (const auto& [name, value] : inputs.profile.concepts) {
      facts.set(name, value ? std::optional<FactValue>(*value) : std::nullopt);
    }
  }
  const RooflineEvidence& r = inputs.roofline;
  facts.set("gap.compute", r.gaps.compute);
  facts.set("gap.memory", r.gaps.memory);
  facts.set("gap.latency", r.gaps.latency);
  facts.set("bound", r.bound);
  facts.set("high_throughput", r.high_throughput);
  facts.set("near_peak", r.near_peak);
  facts.set("arithmetic_intensity", r.arithmetic_intensity ? std::optional<FactValue>(*r.arithmetic_intensity) : std::nullopt);
  facts.set("ridge_point", r.ridge_point);
  facts.set("compute_utilization", r.compute_utilization);
  facts.set("memory_utilization", r.memory_utilization);
  facts.set("arch", static_cast<double>(inputs.arch));
  facts.set("spec.fp32_exact", inputs.fp32_exact ? std::optional<FactValue>(*inputs.fp32_exact) : std::nullopt);
  facts.set("spec.dtype", inputs.dtype.empty() ? std::nullopt : std::optional<FactValue>(inputs.dtype));
  return facts;
}

Plan plan_methods(const MethodCatalog& catalog, const PlanInputs& inputs) {
  const Facts facts = plan_facts(inputs);
  Scan scan{catalog, inputs, facts, {}};
  for (const HistoryEntry& entry : inputs.history) {
    const Method* method = catalog.find(entry.id);
    if (method != nullptr && entry.status == "effective") scan.kept.push_back(method);
  }
  Plan plan{.arch = inputs.arch, .degraded_evidence = inputs.profile.degraded, .bound = inputs.roofline.bound,
            .ceiling = ceiling_sentence(inputs)};
  int unspent = 0;
  for (Axis axis : roofline::kAxes) {
    AxisPlan& axis_plan = plan.axes[static_cast<size_t>(axis)];
    axis_plan.axis = axis;
    axis_plan.budget = inputs.roofline.budget.of(axis);
    scan_axis(axis_plan, axis_plan.budget, false, scan);
    axis_plan.unspent = axis_plan.budget - static_cast<int>(axis_plan.chosen.size());
    unspent += axis_plan.unspent;
  }
  for (Axis axis : receiving_axes(inputs.roofline.bound)) {
    AxisPlan& axis_plan = plan.axes[static_cast<size_t>(axis)];
    const size_t before = axis_plan.chosen.size();
    scan_axis(axis_plan, unspent, true, scan);
    const int taken = static_cast<int>(axis_plan.chosen.size() - before);
    axis_plan.received += taken;
    unspent -= taken;
  }
  for (AxisPlan& axis_plan : plan.axes) {
    axis_plan.budget_note = axis_budget_note(axis_plan.axis, inputs.roofline, axis_plan.received);
    finish_axis(axis_plan, inputs.roofline.bound, scan);
  }
  plan.ranked = ranked_methods(plan);
  if (inputs.roofline.near_peak) plan.note = "near peak on every axis: little left to win";
  else if (inputs.roofline.budget.total() == 0) plan.note = "no axis has a gap of 10 % or more";
  if (plan.degraded_evidence) plan.note += (plan.note.empty() ? "" : "; ") + std::string("no counters: only roofline facts were used");
  return plan;
}

namespace {

nlohmann::json values_json(const std::map<std::string, FactValue>& values) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [name, value] : values) {
    std::visit([&](const auto& v) { out[name] = v; }, value);
  }
  return out;
}

}  // namespace

void to_json(nlohmann::json& out, const Plan& plan) {
  nlohmann::json axes = nlohmann::json::object();
  nlohmann::json budget = nlohmann::json::object();
  for (const AxisPlan& axis : plan.axes) {
    nlohmann::json chosen = nlohmann::json::array();
    for (const Chosen& c : axis.chosen) {
      chosen.push_back({{"id", c.id}, {"trigger", c.trigger}, {"values", values_json(c.values)}, {"macro", c.macro},
                        {"signature", c.signature}, {"change", c.change}, {"from_unspent_budget", c.spilled}});
    }
    nlohmann::json passed = nlohmann::json::array();
    for (const PassedOver& p : axis.passed_over) {
      passed.push_back({{"id", p.id}, {"macro", p.macro}, {"reason", p.reason}, {"detail", p.detail},
                        {"values", values_json(p.values)}, {"missing", p.missing}});
    }
    const std::string name(roofline::to_string(axis.axis));
    budget[name] = axis.budget;
    axes[name] = {{"budget", axis.budget}, {"received", axis.received}, {"unspent", axis.unspent},
                  {"budget_note", axis.budget_note}, {"chosen", chosen}, {"passed_over", passed}};
  }
  out = {{"schema", "kopt.plan/1"},     {"arch", fmt::format("sm_{}", plan.arch)},
         {"degraded_evidence", plan.degraded_evidence}, {"bound", plan.bound},
         {"ceiling", plan.ceiling},       {"note", plan.note},
         {"budget", budget},              {"budget_rules", budget_rules_text()},
         {"ranked", plan.ranked},         {"axes", axes}};
}

}  // namespace kopt::catalog
