#pragma once
// A workload session's page (`kopt report SESSION`): the claim, the GPU, each candidate's
// paired gain with its interval beside the final audit's, each constraint against its limit,
// then summary.md. Drawn from workload.json alone; the session's files are only read.

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

namespace kopt::report {

std::string render_workload_report(const nlohmann::json& workload);

// Whether `folder` is a workload session (it holds workload.json).
bool is_workload_session(const std::filesystem::path& folder);

// Writes OUT_DIR/report.html and returns the session's workload.json.
nlohmann::json write_workload_report(const std::filesystem::path& session, const std::filesystem::path& out_dir);

}  // namespace kopt::report
