#pragma once
// handoff.md (`kopt handoff RUN`): the document a second agent or person resumes a run from —
// where it stands, the champion, what worked, what did not and why (each branch's measured
// result held against its experiment record's hypothesis and expected gain), the open
// questions the measurements leave, and the next step. Everything is read from the run's
// files; nothing is measured here. The skill tells an agent to read it first.

#include <string>

#include <nlohmann/json.hpp>

#include "kopt/loop/run_state.hpp"

namespace kopt::report {

// The handoff's facts, one JSON document: state, champion, worked[], did_not[], open_questions[], next.
nlohmann::json run_handoff(const loop::RunFolder& run);

std::string format_handoff(const nlohmann::json& handoff);

// Writes RUN/handoff.md; returns the facts.
nlohmann::json write_handoff(const loop::RunFolder& run);

}  // namespace kopt::report
