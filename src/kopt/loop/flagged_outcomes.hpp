#pragma once
// What `kopt bench` flags, the loop does not keep: a variant a flag names fails, and a flag
// that names no variant fails every variant of that timing worker. The lab's judgement of a
// bench's variants (judge_outcomes) applies them.

#include <string>
#include <vector>

#include "kopt/loop/lab.hpp"
#include "kopt/measure/bench.hpp"

namespace kopt::loop {

// A variant that failed, and why (one line).
VariantOutcome failed_outcome(const std::string& label, const std::string& cause);

// Fails every passing outcome that one of `bench`'s flags concerns (measure::variants_named_by),
// with the flag as its cause.
void fail_flagged_outcomes(const measure::BenchReport& bench, std::vector<VariantOutcome>& outcomes);

// The variants Nsight Compute timed at more than kopt's samples allow, or that failed under it
// (add_ncu_witness's entries in bench.json): failed outcomes. ncu unavailable is a WARN only.
void fail_disagreeing_with_ncu(const measure::BenchReport& bench, std::vector<VariantOutcome>& outcomes);

// Each variant's outcome in `result` from the bench: the case named `timed` gives its time and
// its verdict against the first; a failure on any case timed, a FLAG, rewritten code in the
// timing worker or Nsight Compute's disagreement fails it.
void judge_outcomes(const measure::BenchReport& bench, const std::string& timed, Measurement& result);

}  // namespace kopt::loop
