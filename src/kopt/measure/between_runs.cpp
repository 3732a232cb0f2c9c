#include "kopt/measure/between_runs.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <vector>

#include "kopt/core/error.hpp"
#include "kopt/spec/data_file.hpp"

namespace kopt::measure {
namespace {

constexpr const char* kReproducibilityFile = "data/reproducibility.toml";

BetweenRunsRule load_between_runs_rule() {
  const toml::table root = spec::load_data_file(kReproducibilityFile);
  const toml::table& table = spec::data_section(root, kReproducibilityFile, "short_medians",
                                                {"below_seconds", "largest_spread", "measured"});
  BetweenRunsRule rule{.below_seconds = table["below_seconds"].value_or(0.0),
                       .largest_spread = table["largest_spread"].value_or(0.0),
                       .measured = table["measured"].value_or(std::string())};
  if (!(rule.below_seconds > 0) || !(rule.largest_spread > 0) || rule.measured.empty()) {
    throw environment_error("{}: [short_medians] needs a positive below_seconds and largest_spread, and measured",
                            kReproducibilityFile);
  }
  return rule;
}

}  // namespace

const BetweenRunsRule& between_runs_rule() {
  static const BetweenRunsRule rule = load_between_runs_rule();
  return rule;
}

std::optional<std::string> between_runs_note(const BenchReport& report, const BetweenRunsRule& rule) {
  std::vector<std::string> short_ones;
  for (const VariantReport& v : report.variants) {
    const double median = v.summary.median;
    if (median > 0 && median < rule.below_seconds) short_ones.push_back(fmt::format("{} (case {})", v.label, v.case_name));
  }
  if (short_ones.empty()) return std::nullopt;
  return fmt::format(
      "{}: medians under {:.0f} µs moved by up to {:.1f} % between separate runs ({}; docs/measurement.md), more "
      "than one run's 95 % interval shows; verdicts within one run (`kopt compare`, or one `kopt bench` of several "
      "kernels) are not affected",
      fmt::join(short_ones, ", "), rule.below_seconds * 1e6, 100 * rule.largest_spread, rule.measured);
}

}  // namespace kopt::measure
