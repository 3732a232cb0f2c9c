#pragma once
// A workload experiment (`kopt workload`): the original measured first (its repeat spread is
// the session's resolution), then each candidate — its accuracy gate before any of its times
// count, then paired rounds against fresh runs of the original, each run a fresh process, the
// order within a round alternating (original first, then candidate first: ABBA over two
// rounds, which cancels a linear drift) — until the primary metric's verdict and the
// constraints settle or the rounds run out; a champion only by the primary verdict with every
// constraint kept; a final paired audit of the champion against the original, of a fixed
// number of rounds (no early stop); the prediction reconciled with what was measured.
//
// Every run is appended to the session's journal as it ends, under its place in the plan: the
// plan is a function of the journal, so a session killed anywhere and started again runs
// exactly the runs it had not finished, and makes the same decisions.

#include <filesystem>
#include <functional>
#include <optional>
#include <string_view>

#include <nlohmann/json.hpp>

#include "kopt/workload/workload_freeze.hpp"
#include "kopt/workload/workload_run.hpp"
#include "kopt/workload/workload_spec.hpp"

namespace kopt::workload {

inline constexpr std::string_view kWorkloadSchema = "kopt.workload/1";

struct SessionOptions {
  std::filesystem::path folder;            // the session's folder (journal, outputs, documents)
  bool fresh = false;                      // set an existing session aside and start anew
  std::optional<double> budget_minutes;    // overrides [measure] budget_minutes
};

struct SessionHooks {
  RunEnvironment environment;
  EnvironmentProbe probe;
  std::function<void(std::string_view)> log = [](std::string_view) {};
};

// The session folder's default: <workload folder>/workload_session.
std::filesystem::path default_session_folder(const WorkloadSpec& spec);

// Runs (or resumes) the session; writes workload.json (kopt.workload/1), summary.md and
// handoff.md into its folder and returns workload.json. An original that fails is recorded and
// ends the session with status "original_failed" (a later call runs that run again); the
// workload's failures never throw.
nlohmann::json run_workload_session(const WorkloadSpec& spec, const SessionOptions& options, SessionHooks& hooks);

}  // namespace kopt::workload
