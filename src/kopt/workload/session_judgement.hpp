#pragma once
// What a workload session concludes from its runs, apart from running them: which candidate
// may be champion and why the others may not, the original's drift, what shared the machine,
// the original against its own accuracy gate, and the prediction against what was measured.

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kopt/workload/workload_run.hpp"
#include "kopt/workload/workload_spec.hpp"

namespace kopt::workload {

// The session's runs by their place in the plan.
using Journal = std::map<std::string, RunRecord>;

// Why a candidate's result (workload.json's candidates[i]) cannot make it champion: not
// compared, a primary verdict other than better, a constraint not kept; empty when it can.
std::string why_not_champion(const nlohmann::json& candidate);
// Sets doc["champion"] to the eligible candidate with the largest gain (null when none), and
// each other candidate's "not_champion_because".
void choose_champion(nlohmann::json& doc);

// The original's primary metric in the order its counted runs were made (warm-ups and gates
// left out): what the drift record reads.
std::vector<double> original_primary_in_order(const Journal& journal, const WorkloadSpec& spec);
nlohmann::json interference_summary(const Journal& journal);
nlohmann::json original_gate_summary(const Journal& journal, const std::string& original);

// The trace's prediction, reconciled with the audit's verdict where the predicted candidate
// was audited, else with its comparison's.
nlohmann::json prediction_of(const WorkloadSpec& spec, const nlohmann::json& doc);

}  // namespace kopt::workload
