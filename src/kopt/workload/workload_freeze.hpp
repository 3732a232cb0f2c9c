#pragma once
// The freeze: what a workload session measures, fixed before its first run and checked
// again on every resume — the workload.toml itself (command, metric rules, gate, the
// variables that select each candidate), a digest of the test inputs, and the environment
// (GPU model and UUID, driver, clocks as found, Python and torch versions). A session whose
// workload or environment changed is refused, not silently continued: its pairs would compare
// different things.

#include <functional>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "kopt/core/process.hpp"
#include "kopt/workload/workload_spec.hpp"

namespace kopt::workload {

inline constexpr std::string_view kFreezeSchema = "kopt.workload_freeze/1";

// What the machine says about itself (nvidia-smi, the workload's Python): tests fake it.
using EnvironmentProbe = std::function<nlohmann::json(const WorkloadSpec& spec)>;
nlohmann::json probe_environment(const WorkloadSpec& spec, ProcessRunner& runner);

// kopt.workload_freeze/1 for `spec` now.
nlohmann::json freeze_workload(const WorkloadSpec& spec, const nlohmann::json& environment);

// The first difference between a session's freeze and now that invalidates its pairs
// ("the test inputs changed: data/x.bin"), or nullopt. Clocks and load are recorded, not
// compared: they are what the drift record watches.
std::optional<std::string> freeze_difference(const nlohmann::json& frozen, const nlohmann::json& now);

// The content digest of the spec's inputs (files, or every file under a folder), by path.
nlohmann::json input_digests(const WorkloadSpec& spec);

}  // namespace kopt::workload
