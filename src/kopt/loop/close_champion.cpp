#include "kopt/core/file_queries.hpp"
#include "kopt/loop/close_steps.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "kopt/catalog/method_catalog.hpp"
#include "kopt/catalog/methods_validator.hpp"

namespace kopt::loop {
namespace fs = std::filesystem;
using json = nlohmann::json;

std::string classify(const std::string& sass_status, const std::optional<VariantOutcome>& ablated) {
  if (sass_status == "missing" || sass_status == "switched_off") return "implementation_failed";
  if (!ablated || !ablated->passed || !ablated->versus_first) return "not_ablated";
  const std::string& without = ablated->versus_first->verdict;
  // Taking it out made the champion significantly faster: the method costs time here.
  if (without == "faster") return "harmful";
  return without == "slower" ? "effective" : "ineffective";
}

json ablate(Lab& lab, const RunFolder& run, int i, const Variant& champion, const std::vector<std::string>& methods,
            const json& sass, const Clock& clock) {
  const StepCost cost(lab, clock);
  const fs::path champion_kernel = run.absolute(champion.kernel);
  const std::vector<spec::MethodSwitch> on = switches_on(champion_kernel, champion.defines);
  Variant reference = champion;
  reference.label = "champion";
  std::vector<Variant> variants = {reference};
  std::map<std::string, std::string> how;
  for (const std::string& id : methods) {
    Variant v = champion;
    v.label = "without " + id;
    const fs::path written = run.iteration(i) / "ablation" / id / kernel_file_like(champion.kernel);
    const auto sw = std::ranges::find(on, id, &spec::MethodSwitch::method_id);
    if (path_exists(written)) {
      v.kernel = run.relative(written);
      how[id] = "the driver's kernel " + run.relative(written).string();
    } else if (sw != on.end()) {
      v.defines[sw->macro] = "0";
      how[id] = sw->macro + "=0";
    } else {
      continue;
    }
    variants.push_back(std::move(v));
  }
  std::vector<VariantOutcome> outcomes;
  json gpu;
  if (variants.size() > 1) {
    std::vector<Variant> absolute;
    for (const Variant& v : variants) absolute.push_back(run.resolved(v));
    Measurement m = lab.measure({.variants = absolute});
    // Its samples: the report draws them when the champion without a harmful method is the best.
    if (!m.detail.is_null()) write_json(run.iteration(i) / "ablation_bench.json", m.detail);
    outcomes = std::move(m.outcomes);
    gpu = std::move(m.gpu);
  }
  json rows = json::array();
  for (const std::string& id : methods) {
    std::string sass_status = "not_verifiable";
    for (const json& s : sass) {
      if (s.at("method") == id) sass_status = s.at("status");
    }
    std::optional<VariantOutcome> ablated;
    for (const VariantOutcome& o : outcomes) {
      if (o.label == "without " + id) ablated = o;
    }
    json row = {{"id", id}, {"sass", sass_status}, {"class", classify(sass_status, ablated)}};
    row["ablation"] = how.contains(id) ? json(how[id]) : json(nullptr);
    if (ablated && ablated->passed && ablated->versus_first) {
      // The ratio is time without the method over time with it: 1.25 means it saves 20 %.
      row["time_ratio_without"] = ablated->versus_first->ratio;
      row["time_ratio_without_ci"] = {ablated->versus_first->low, ablated->versus_first->high};
      row["verdict_without"] = ablated->versus_first->verdict;
    } else if (ablated) {
      row["ablation_failure"] = ablated->failure;
    }
    rows.push_back(std::move(row));
  }
  return {{"champion", champion}, {"methods", rows}, {"outcomes", outcomes}, {"gpu", gpu},
          {"cost", cost.finish(variants.size() > 1 ? variants.size() - 1 : 0)}};
}

namespace {

// Why a switch the champion has on was not claimed: "kept" (effective in an earlier iteration,
// so it is in the best already and was measured then), "refused" (claiming it would have
// broken the catalog's rules for this evidence: the violations say which), else "unclaimed".
json unclaimed_row(const spec::MethodSwitch& sw, const Branch& branch, const catalog::MethodCatalog& catalog,
                   const std::optional<catalog::PlanInputs>& inputs) {
  json row = {{"id", sw.method_id}, {"macro", sw.macro}, {"status", "unclaimed"}};
  if (!inputs) return row;
  for (const catalog::HistoryEntry& entry : inputs->history) {
    if (entry.id == sw.method_id && entry.status == "effective") {
      row["status"] = "kept";
      row["reason"] = fmt::format("effective in iteration {}, kept in the best since", entry.iteration);
    }
  }
  if (row["status"] == "kept") return row;
  // Claimed beside the branch's own claims: every violation that claim adds (its own rules, or
  // a budget it would overrun, which the validator may name on another claim of the axis).
  std::vector<std::string> claims = branch.methods;
  std::vector<std::string> before;
  for (const catalog::Violation& v : catalog::validate_methods(catalog, claims, *inputs, branch.retries)) {
    before.push_back(v.message);
  }
  claims.push_back(sw.method_id);
  json refused_by = json::array();
  for (const catalog::Violation& v : catalog::validate_methods(catalog, claims, *inputs, branch.retries)) {
    if (std::ranges::find(before, v.message) == before.end()) refused_by.push_back(v.message);
  }
  if (!refused_by.empty()) {
    row["status"] = "refused";
    row["refused_by"] = refused_by;
  }
  return row;
}

}  // namespace

json unclaimed_switches(const std::vector<spec::MethodSwitch>& on, const Branch& branch,
                        const std::optional<catalog::PlanInputs>& inputs) {
  const catalog::MethodCatalog catalog = catalog::load_method_catalog();
  json rows = json::array();
  std::vector<std::string> seen = branch.methods;
  for (const spec::MethodSwitch& sw : on) {
    if (std::ranges::find(seen, sw.method_id) != seen.end()) continue;
    seen.push_back(sw.method_id);
    rows.push_back(unclaimed_row(sw, branch, catalog, inputs));
  }
  return rows;
}

ChampionSteps champion_steps(Lab& lab, const RunFolder& run, int i, const std::vector<Branch>& branches,
                             const std::vector<std::size_t>& finalists, const json& finals,
                             const std::optional<catalog::PlanInputs>& inputs, const LoopContext& hooks) {
  const std::vector<VariantOutcome> final_outcomes = outcomes_of(finals);
  const std::optional<std::size_t> winner = pick_champion(final_outcomes);
  if (!winner) return {.ablation = nullptr};
  const Branch& branch = branches[finalists[*winner - 1] - 1];
  const fs::path cdir = run.champion(i);
  Variant champion = branch.variant;
  champion.label = iter_name(i) + "/champion";
  champion.kernel = run.relative(cdir / kernel_file_like(branch.variant.kernel));
  const json chosen = once(cdir / "variant.json", hooks, "champion", [&] {
    write_file_atomic(run.absolute(champion.kernel), read_file(run.absolute(branch.variant.kernel)));
    write_json(cdir / "bench.json", final_outcomes[*winner]);
    return json(champion);
  });
  champion = chosen.get<Variant>();
  say(hooks, fmt::format("{}: champion {} ({}); profiling it", iter_name(i), branch.name, branch.label));
  once(cdir / "profile" / "evidence.json", hooks, "profile", [&] {
    const Evidence e = lab.profile(run.resolved(champion), cdir / "profile");
    return json{{"ok", e.ok}, {"reason", e.reason}};
  });
  // Only what the branch claimed, and the validator accepted, is checked, ablated and classed: a
  // switch declared but not claimed is reported beside them, so that declaring one is no way
  // around the budget and the skip rules.
  const std::vector<std::string>& claimed = branch.methods;
  const json sass = once(cdir / "sass.json", hooks, "sass", [&] { return json(lab.sass(run.resolved(champion), claimed)); });
  say(hooks, fmt::format("{}: ablating {} method(s)", iter_name(i), claimed.size()));
  json ablation = once(run.iteration(i) / "ablation.json", kAblationSchema, hooks, "ablation", [&] {
    json document = ablate(lab, run, i, champion, claimed, sass, *hooks.clock);
    document["unclaimed"] = unclaimed_switches(switches_on(run.absolute(champion.kernel), champion.defines), branch, inputs);
    return document;
  });
  for (const json& row : ablation.value("unclaimed", json::array())) {
    say(hooks, fmt::format("{}: {} is switched on but not claimed ({}): not ablated, not in the ledger", iter_name(i),
                           row.at("id").get<std::string>(), row.at("status").get<std::string>()));
  }
  return {.name = branch.name, .ablation = std::move(ablation)};
}

}  // namespace kopt::loop
