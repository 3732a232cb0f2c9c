#pragma once
// summary.md of a run folder (`kopt finalize`, `kopt report`): the headline speedups, one row
// per iteration, the method ledger with each method's measured contribution, the frontier of
// branches that passed but did not win, and what was rejected and why. Everything is read
// from the run's files; nothing is measured here.

#include <filesystem>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "kopt/loop/run_state.hpp"

namespace kopt::report {

// The facts summary.md shows, as one JSON document (kopt.summary/1): the report's charts
// are drawn from the same document, so the two cannot disagree.
nlohmann::json run_summary(const loop::RunFolder& run);

std::string format_run_summary(const nlohmann::json& summary);

// The headline: the final audit's paired speedup and interval (audit.json), or, before the
// audit, the ratio of medians measured apart, called so.
std::string audit_headline(const nlohmann::json& summary);

// Where the best stands in absolute terms, beside the headline's speedup over a baseline that
// may be slow by design: its share of the roofline's ceilings (the spec's work over its
// median) and its speed against the reference's. "" when neither is known.
std::string standing_text(const nlohmann::json& summary);

// A time as summary.md writes it ("3181.66 µs"): every page that repeats one of its numbers
// writes it the same way.
std::string format_us(double seconds);

// The outcome in `file` (a bench.json's one outcome, or a document of "outcomes") whose median
// is `median_s`: which measurement gave a median. Nothing when the file is absent or holds none.
std::optional<nlohmann::json> outcome_with_median(const std::filesystem::path& file, double median_s);

// Writes RUN/summary.md and RUN/summary.json; returns the summary.
nlohmann::json write_run_summary(const loop::RunFolder& run);

}  // namespace kopt::report
