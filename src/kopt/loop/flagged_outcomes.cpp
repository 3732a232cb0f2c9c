#include "kopt/loop/flagged_outcomes.hpp"

#include "kopt/measure/bench_assessment.hpp"

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

}  // namespace kopt::loop
