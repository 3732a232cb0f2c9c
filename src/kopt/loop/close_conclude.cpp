#include "kopt/core/file_queries.hpp"
#include "kopt/loop/close_steps.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace kopt::loop {
namespace fs = std::filesystem;
using json = nlohmann::json;

json evidence_summary(const fs::path& dir) {
  if (!path_exists(dir / "roofline.json")) return nullptr;
  const json r = read_json(dir / "roofline.json");
  return {{"bound", r.value("bound", "")}, {"gaps", r.value("gaps", json::object())},
          {"near_peak", r.value("near_peak", false)}, {"degraded", r.value("degraded", false)}};
}

// Where the close's wall time went. kopt's own time is what no compile and no GPU worker
// (check, timing, profile, reference) was running: the loop's bookkeeping, planning, file
// and machine-code reading. It is charged to the branches, whose count drives all of it.
json time_spent(double wall, const ProcessTimes& processes, std::size_t branches) {
  const double own = std::max(0.0, wall - processes.compile_or_device_s);
  return {{"wall_s", wall},
          {"compile_s", processes.compile_s},
          {"device_s", processes.device_s},
          {"tools_s", processes.tool_s},
          {"kopt_s", own},
          {"kopt_s_per_branch", branches > 0 ? own / static_cast<double>(branches) : own}};
}

json switch_off_harmful(const RunFolder& run, const json& ablation, double champion_median) {
  if (!ablation.is_object()) return nullptr;
  Variant best = ablation.at("champion").get<Variant>();
  const std::vector<spec::MethodSwitch> on = switches_on(run.absolute(best.kernel), best.defines);
  std::vector<std::string> harmful;
  for (const json& m : ablation.at("methods")) {
    if (m.value("class", "") == "harmful") harmful.push_back(m.at("id"));
  }
  json off = json::array();
  std::optional<double> measured;
  for (const std::string& id : harmful) {
    const auto sw = std::ranges::find(on, id, &spec::MethodSwitch::method_id);
    const fs::path written =
        run.absolute(best.kernel).parent_path().parent_path() / "ablation" / id / kernel_file_like(best.kernel);
    if (sw != on.end()) {
      best.defines[sw->macro] = "0";
    } else if (harmful.size() == 1 && path_exists(written)) {
      best.kernel = run.relative(written);
    } else {
      continue;
    }
    off.push_back(id);
    for (const json& o : ablation.at("outcomes")) {
      if (o.value("label", "") == "without " + id) measured = o.at("median_s").get<double>();
    }
  }
  if (off.empty()) return nullptr;
  best.label += " without " + off.front().get<std::string>() + (off.size() > 1 ? " and others" : "");
  const bool one = off.size() == 1 && measured;
  return {{"switched_off", off}, {"variant", best}, {"median_s", one ? *measured : champion_median},
          {"median_from", one ? "ablation" : "champion"}};
}

json stage_costs(const RunFolder& run, int i, const json& screen, const json& finals, const json& ablation) {
  json stages = json::object();
  auto add = [&](const char* name, const json& document) {
    if (!document.is_object() || !document.contains("cost")) return;
    json cost = document.at("cost");
    const double candidates = cost.at("candidates").get<double>();
    cost["per_candidate_s"] = candidates > 0 ? cost.at("wall_s").get<double>() / candidates : 0.0;
    stages[name] = std::move(cost);
  };
  const fs::path look = run.iteration(i) / "first_look.json";
  if (path_exists(look)) add("first_look", read_json(look));
  add("full_check", screen);
  add("finals", finals);
  add("ablation", ablation);
  return stages;
}

json conclude(const RunFolder& run, int i, const RunState& state, const std::vector<Branch>& branches,
              const std::vector<std::string>& methods, const json& screen, const json& finals,
              const std::optional<std::string>& champion_name, const json& ablation, const json& time) {
  const std::vector<VariantOutcome> screened = outcomes_of(screen);
  json branch_rows = json::array();
  bool any_passed = false;
  for (std::size_t k = 0; k < branches.size(); ++k) {
    const VariantOutcome& o = screened.at(k + 1);
    // A branch the first look found correct but not promising passed what it went through.
    any_passed = any_passed || o.passed || o.first_look_median.has_value();
    json row = {{"name", branches[k].name}, {"label", branches[k].label}, {"defines", branches[k].variant.defines},
                {"methods", branches[k].methods}, {"outcome", o}};
    branch_rows.push_back(std::move(row));
  }
  json document = {{"schema", kIterationSchema},
                   {"index", i},
                   {"verdict", champion_name ? "advanced" : any_passed ? "no_gain" : "all_failed"},
                   {"champion", champion_name ? json(*champion_name) : json(nullptr)},
                   {"best_before", {{"label", state.best.label}, {"median_s", screened.at(0).median}}},
                   {"evidence_in", evidence_summary(run.iteration(i))},
                   {"methods_claimed", methods},
                   {"retries", retries_of(branches)},
                   {"branches", branch_rows},
                   {"elapsed_s", time.at("wall_s")},
                   {"time", time}};
  document["time"]["stages"] = stage_costs(run, i, screen, finals, ablation);
  if (champion_name) {
    const std::vector<VariantOutcome> final_outcomes = outcomes_of(finals);
    for (std::size_t k = 1; k < final_outcomes.size(); ++k) {
      const VariantOutcome& o = final_outcomes[k];
      if (o.label != iter_name(i) + "/" + *champion_name) continue;
      document["champion_median_s"] = o.median;
      document["speedup_vs_best"] = 1 / o.versus_first->ratio;
      document["speedup_vs_best_ci"] = {1 / o.versus_first->high, 1 / o.versus_first->low};
      document["best_before"]["median_s"] = final_outcomes[0].median;
    }
    document["methods"] = ablation.at("methods");
    // Switches on in the champion that no claim covered: reported, never a method's result.
    if (ablation.contains("unclaimed")) document["unclaimed"] = ablation.at("unclaimed");
    for (const std::string& id : methods) {  // claimed only by branches that lost: nothing was attributed
      if (std::ranges::find(ablation.at("methods"), json(id), [](const json& m) { return m.at("id"); }) !=
          ablation.at("methods").end()) continue;
      document["methods"].push_back({{"id", id}, {"class", "tried"},
                                     {"reason", "claimed only by branches that were not the champion"}});
    }
    const json next_best = switch_off_harmful(run, ablation, document.at("champion_median_s").get<double>());
    if (!next_best.is_null()) document["best_after"] = next_best;
  } else {
    json rows = json::array();
    for (const std::string& id : methods) {
      rows.push_back({{"id", id}, {"class", "tried"}, {"reason", "no branch was significantly faster than the best"}});
    }
    document["methods"] = rows;
  }
  return document;
}

}  // namespace kopt::loop
