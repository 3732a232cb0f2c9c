#pragma once
// What a run is judged by, frozen at init: the spec (its cases, buffers and tolerance) and the
// reference are copied into RUN/frozen/ and hashed in RUN/frozen.json (kopt.frozen/1), with
// the tolerance written out. A later command that finds either file changed refuses with one
// line naming it: the verdicts of one run must all come from one test set and one precision
// rule (docs/loop.md). Runs made before kopt froze anything have no frozen.json and are not
// checked.

#include <optional>
#include <string>
#include <string_view>

#include "kopt/loop/run_state.hpp"
#include "kopt/spec/problem_spec.hpp"

namespace kopt::loop {

inline constexpr std::string_view kFrozenSchema = "kopt.frozen/1";

// Writes RUN/frozen/ and RUN/frozen.json; when frozen.json is already there (an init resumed)
// it only checks it, as require_frozen_inputs.
void freeze_inputs(const RunFolder& run, const spec::ProblemSpec& problem);

// One line naming the first frozen file that is now missing or different; none when every
// one is unchanged, or the run froze nothing.
std::optional<std::string> changed_input(const RunFolder& run);

// Throws input_error with changed_input's line.
void require_frozen_inputs(const RunFolder& run);

// The folder a resumed run (`optimize --run DIR`) goes on in: DIR itself, unless it holds a
// run whose frozen inputs changed and a new run was asked for, then the first of DIR-2,
// DIR-3, ... that holds no run.
std::filesystem::path run_folder_to_use(const std::filesystem::path& requested, bool new_run_on_change);

}  // namespace kopt::loop
