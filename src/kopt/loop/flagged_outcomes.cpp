#include "kopt/loop/flagged_outcomes.hpp"

#include "kopt/measure/bench_assessment.hpp"
#include "kopt/measure/code_witness.hpp"
#include "kopt/measure/sample_witness.hpp"
#include "kopt/measure/verdict.hpp"

namespace kopt::loop {

void fail_flagged_outcomes(const measure::BenchReport& bench, std::vector<VariantOutcome>& outcomes) {
  for (const std::string& flag : bench.flags) {
    const std::vector<std::string> named = measure::variants_named_by(flag, bench);
    for (VariantOutcome& outcome : outcomes) {
      const bool concerned = named.empty() || std::ranges::find(named, outcome.label) != named.end();
      if (outcome.passed && concerned) {
        outcome = {.label = outcome.label, .passed = false, .failure = "flagged while timed: " + flag};
      }
    }
  }
}

void fail_disagreeing_with_ncu(const measure::BenchReport& bench, std::vector<VariantOutcome>& outcomes) {
  if (!bench.ncu_witness.is_array()) return;
  for (const nlohmann::json& w : bench.ncu_witness) {
    const bool failed = !w.at("failure").is_null();
    if (!failed && !w.at("disagrees").get<bool>()) continue;
    const auto slot = std::ranges::find(outcomes, w.at("label").get<std::string>(), &VariantOutcome::label);
    if (slot == outcomes.end() || !slot->passed) continue;
    *slot = {.label = slot->label,
             .passed = false,
             .failure = failed ? "solve failed under Nsight Compute's witness, though it passed its check"
                               : "Nsight Compute timed its kernels longer than kopt's samples allow "
                                 "(patched timers or forged samples: docs/integrity.md)"};
  }
}

VariantOutcome failed_outcome(const std::string& label, const std::string& cause) {
  return {.label = label, .passed = false, .failure = cause};
}

namespace {

VariantOutcome timed_outcome(const measure::VariantReport& v) {
  return {.label = v.label,
          .passed = true,
          .median = v.summary.median,
          .median_low = v.summary.median_ci.low,
          .median_high = v.summary.median_ci.high,
          .relative_stdev = v.summary.relative_stdev,
          .samples = v.summary.count};
}

// Why a variant's timing on one case cannot stand, if it cannot (the gravest reason first).
std::optional<std::string> timed_failure(const measure::VariantReport& v) {
  if (v.witness && measure::witness_fails(*v.witness, measure::sample_witness_rule())) {
    return "its samples report less time than kopt's own clock saw (patched clocks or forged samples: "
           "docs/integrity.md)";
  }
  if (v.below_floor) return "faster than the roofline floor: a wrong spec or a cheating kernel";
  if (!v.recheck_failure.empty()) return "wrong after the timing loop: " + v.recheck_failure;
  if (v.summary.count == 0) return "no sample was kept: nothing measured";
  return std::nullopt;
}

}  // namespace

// Each variant's outcome from the bench: the timed case gives its time and its verdict
// against the first; a failure on any case timed, a FLAG, rewritten code in the timing worker
// or Nsight Compute's disagreement fails it.
void judge_outcomes(const measure::BenchReport& bench, const std::string& timed, Measurement& result) {
  for (const measure::VariantReport& v : bench.variants) {
    if (v.case_name != timed) continue;
    if (v.label == "reference") {
      result.reference_median = v.summary.median;
      continue;
    }
    const auto slot = std::ranges::find(result.outcomes, v.label, &VariantOutcome::label);
    if (slot != result.outcomes.end()) *slot = timed_outcome(v);
  }
  for (const measure::VariantReport& v : bench.variants) {
    const auto slot = std::ranges::find(result.outcomes, v.label, &VariantOutcome::label);
    if (v.label == "reference" || slot == result.outcomes.end()) continue;
    if (std::optional<std::string> failure = timed_failure(v)) *slot = failed_outcome(v.label, *failure);
  }
  fail_flagged_outcomes(bench, result.outcomes);
  // Code rewritten in the timing worker: any of its variants could have done it, and every time
  // it reported may be forged.
  if (measure::code_witness_flag(bench.code_witness)) {
    for (VariantOutcome& outcome : result.outcomes) {
      if (outcome.passed) {
        outcome = failed_outcome(outcome.label, "the timing worker's code was rewritten while it ran (a variant patched "
                                                "CUDA, the C library or kopt: docs/integrity.md)");
      }
    }
  }
  fail_disagreeing_with_ncu(bench, result.outcomes);
  for (const measure::PairVerdict& p : bench.verdicts) {
    if (p.case_name != timed) continue;
    const auto slot = std::ranges::find(result.outcomes, p.label, &VariantOutcome::label);
    if (slot == result.outcomes.end() || !slot->passed) continue;
    slot->versus_first = VersusFirst{.verdict = std::string(measure::verdict_name(p.comparison.verdict)),
                                     .ratio = p.comparison.ratio.ratio,
                                     .low = p.comparison.ratio.ci.low,
                                     .high = p.comparison.ratio.ci.high};
  }
}

}  // namespace kopt::loop
