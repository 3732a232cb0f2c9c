#include "kopt/workload/session_judgement.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "kopt/system/system_trace.hpp"
#include "kopt/workload/workload_prediction.hpp"

namespace kopt::workload {

using nlohmann::json;

void choose_champion(json& doc) {
  doc["champion"] = nullptr;
  double best_gain = 0;
  if (!doc.contains("candidates")) doc["candidates"] = json::array();
  for (json& c : doc["candidates"]) {
    const std::string why = why_not_champion(c);
    if (!why.empty()) {
      c["not_champion_because"] = why;
      continue;
    }
    const double gain = c.at("primary").at("gain");
    if (gain > best_gain) {
      best_gain = gain;
      doc["champion"] = c.at("name");
    }
  }
}

std::string why_not_champion(const json& c) {
  if (c.value("status", "") != "compared") return c.value("reason", "not measured");
  const std::string verdict = c.at("primary").at("verdict");
  if (verdict != "better") return fmt::format("the primary metric's verdict is {}", verdict);
  for (const json& k : c.at("constraints")) {
    if (k.at("status") != "kept") {
      return fmt::format("constraint {} {} (ratio {:.4f} [{:.4f}, {:.4f}] against at most {:.4f})",
                         k.at("metric").get<std::string>(), k.at("status").get<std::string>(),
                         k.at("ratio").at("median_ratio").get<double>(), k.at("ratio").at("low").get<double>(),
                         k.at("ratio").at("high").get<double>(), 1 + k.at("max_worse").get<double>());
    }
  }
  return "";
}

std::vector<double> original_primary_in_order(const Journal& journal, const WorkloadSpec& spec) {
  std::vector<const RunRecord*> runs;
  for (const auto& [key, r] : journal) {
    const bool counted = r.slot.phase == "resolution" || r.slot.phase == "compare" || r.slot.phase == "audit";
    if (counted && r.slot.arm == spec.original.name && r.ok) runs.push_back(&r);
  }
  std::ranges::sort(runs, {}, &RunRecord::sequence);
  std::vector<double> values;
  for (const RunRecord* r : runs) values.push_back(r->metrics.at(spec.primary.name));
  return values;
}

json interference_summary(const Journal& journal) {
  int with_gpu_others = 0, loaded = 0, gpu_unknown = 0;
  double max_load = 0;
  for (const auto& [key, r] : journal) {
    const Interference& i = r.interference;
    if (!i.gpu_known) ++gpu_unknown;
    if (!i.gpu_processes.empty()) ++with_gpu_others;
    if (i.cpus > 0 && i.load_average > i.cpus) ++loaded;
    max_load = std::max(max_load, i.load_average);
  }
  return {{"runs", journal.size()}, {"runs_with_other_gpu_processes", with_gpu_others},
          {"runs_gpu_unknown", gpu_unknown}, {"runs_host_overloaded", loaded}, {"max_load_average", max_load}};
}

json original_gate_summary(const Journal& journal, const std::string& original) {
  int passed = 0, failed = 0;
  std::string first_failure;
  for (const auto& [key, r] : journal) {
    if (r.slot.arm != original) continue;
    if (r.gate == "passed") ++passed;
    if (r.gate == "failed") {
      ++failed;
      if (first_failure.empty()) first_failure = r.gate_reason;
    }
  }
  return {{"passed", passed}, {"failed", failed}, {"first_failure", first_failure}};
}

// The audit's verdict where the predicted candidate was audited, else its comparison's.
const json* measured_verdict(const json& doc, const std::string& candidate) {
  if (doc.contains("audit") && doc.at("audit").value("champion", "") == candidate && doc.at("audit").contains("primary")) {
    return &doc.at("audit").at("primary");
  }
  for (const json& c : doc.value("candidates", json::array())) {
    if (c.at("name") == candidate && c.contains("primary")) return &c.at("primary");
  }
  return nullptr;
}


json prediction_of(const WorkloadSpec& spec, const json& doc) {
  const Prediction& p = *spec.prediction;
  const GainPrediction predicted = predict_gain(p, system::read_system_trace(spec.folder / p.trace));
  json out = {{"predicted", predicted}};
  const json* measured = measured_verdict(doc, p.candidate);
  if (measured != nullptr) {
    PairedVerdict v;
    v.median_ratio = measured->at("median_ratio");
    v.low = measured->at("low");
    v.high = measured->at("high");
    out["reconciliation"] = reconcile(predicted, v, spec.min_effect);
  }
  return out;
}

}  // namespace kopt::workload
