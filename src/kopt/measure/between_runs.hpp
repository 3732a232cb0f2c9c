#pragma once
// What one run's interval of a median cannot show: how far a short kernel's median moves
// between separate runs (data/reproducibility.toml). Not a flaw of any variant, so a note,
// not a warning: read it before setting a median from one run beside another run's.

#include <optional>
#include <string>

#include "kopt/measure/bench.hpp"

namespace kopt::measure {

struct BetweenRunsRule {
  double below_seconds = 0;   // medians shorter than this get the note
  double largest_spread = 0;  // (max - min) / median of separate runs' medians, as measured
  std::string measured;       // on what, in words
};

// data/reproducibility.toml [short_medians], read once (an environment error naming the file
// and key when it is malformed).
const BetweenRunsRule& between_runs_rule();

// One line naming every timed variant of `report` whose median is under the rule's bound, or
// nothing when there is none.
std::optional<std::string> between_runs_note(const BenchReport& report, const BetweenRunsRule& rule);

}  // namespace kopt::measure
