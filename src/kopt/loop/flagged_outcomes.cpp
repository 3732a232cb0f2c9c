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

}  // namespace kopt::loop
