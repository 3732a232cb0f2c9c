#include "kopt/loop/flagged_outcomes.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace kopt::loop {

std::vector<std::string> variants_named_by(const std::string& flag, const measure::BenchReport& bench) {
  std::vector<std::string> named;
  for (const measure::VariantReport& v : bench.variants) {
    if (flag.starts_with(fmt::format("{} (case {})", v.label, v.case_name))) named.push_back(v.label);
  }
  return named;
}

void fail_flagged_outcomes(const measure::BenchReport& bench, std::vector<VariantOutcome>& outcomes) {
  for (const std::string& flag : bench.flags) {
    const std::vector<std::string> named = variants_named_by(flag, bench);
    for (VariantOutcome& outcome : outcomes) {
      const bool concerned = named.empty() || std::ranges::find(named, outcome.label) != named.end();
      if (outcome.passed && concerned) {
        outcome = {.label = outcome.label, .passed = false, .failure = "flagged while timed: " + flag};
      }
    }
  }
}

}  // namespace kopt::loop
