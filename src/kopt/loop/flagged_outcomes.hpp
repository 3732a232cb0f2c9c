#pragma once
// What `kopt bench` flags, the loop does not keep: a variant a flag names fails, and a flag
// that names no variant fails every variant of that timing worker.

#include <string>
#include <vector>

#include "kopt/loop/lab.hpp"
#include "kopt/measure/bench.hpp"

namespace kopt::loop {

// The labels of the variants `flag` is about: each variant's own flags begin "LABEL (case
// CASE)" (measure/bench_assessment.cpp, measure/sample_witness.cpp, profile/ncu_witness.cpp).
// None: the flag is about the timing worker (its witness's channel written to, samples that
// claim more time than the sampling took), which any of its variants could have caused.
std::vector<std::string> variants_named_by(const std::string& flag, const measure::BenchReport& bench);

// Fails every passing outcome that one of `bench`'s flags concerns, with the flag as its cause.
void fail_flagged_outcomes(const measure::BenchReport& bench, std::vector<VariantOutcome>& outcomes);

}  // namespace kopt::loop
