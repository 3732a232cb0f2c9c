#pragma once
// What kopt's parent makes of a timing worker's samples, for run_bench (bench.hpp): each
// variant summarized, assessed against the roofline floor and the host's clock, and flagged;
// the parent's witness of the samples; every variant's verdict against the baseline.

#include <string>
#include <vector>

#include "kopt/measure/bench.hpp"
#include "kopt/measure/sample_witness.hpp"

namespace kopt::measure {

// Summarizes each variant's samples (side by side: their bootstrap intervals are most of
// kopt's own time in a bench of many variants) and records what each is flagged for; each
// variant goes after the last one of its case.
void add_variants(BenchReport& report, const spec::Problem& problem, std::vector<VariantSamples> all, TimingMode mode,
                  bool interleaved);

// The witness's flags, before the samples move into the report; a warning when it could not
// listen.
void add_witness_flags(BenchReport& report, const std::vector<VariantSamples>& samples, const WitnessedSpans& spans,
                       SolveHost host);

// The witness's numbers for each interleaved variant (bench.json "witness").
void add_witness_numbers(BenchReport& report, const WitnessedSpans& spans, SolveHost host);

// Every variant against `baseline_label`, case by case; the bootstrap ratios side by side.
void add_verdicts(BenchReport& report, const std::string& baseline_label, const ComparisonSettings& settings);

// The labels of the variants `flag` is about: each variant's own flags begin "LABEL (case
// CASE)" (bench_assessment.cpp, sample_witness.cpp, profile/ncu_witness.cpp). None: the flag
// is about the timing worker (its witness's channel written to, samples that claim more time
// than the sampling took), which any of its variants could have caused.
std::vector<std::string> variants_named_by(const std::string& flag, const BenchReport& bench);

// Whether one of `bench`'s flags concerns either variant of `pair`, or the whole timing worker:
// a ratio that a flagged variant took part in is not a verdict to be read.
bool verdict_is_flagged(const BenchReport& bench, const PairVerdict& pair);

}  // namespace kopt::measure
