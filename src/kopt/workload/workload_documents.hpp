#pragma once
// What a workload session says, from its workload.json alone: the one-sentence claim it
// allows, summary.md (the resolution, each candidate's gate and verdicts, the champion, the
// audit, the drift and interference record, predicted against measured), handoff.md (where
// another agent or person picks the session up), and the terminal's short form.

#include <string>

#include <nlohmann/json_fwd.hpp>

namespace kopt::workload {

// "kopt_gelu makes step_ms 1.042x better [1.031, 1.055] (audited, 10 paired rounds)", or
// why no such sentence can be said.
std::string claim_of(const nlohmann::json& doc);

std::string format_workload_summary(const nlohmann::json& doc);
std::string format_workload_handoff(const nlohmann::json& doc);
std::string format_workload_brief(const nlohmann::json& doc);

}  // namespace kopt::workload
