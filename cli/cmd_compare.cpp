// kopt compare A B: paired, interleaved A/B timing with a verdict. `kopt compare A A` shows
// the noise floor of this machine for this kernel.
#include <fmt/format.h>

#include <iostream>

#include "bench_options.hpp"
#include "command.hpp"
#include "kopt/core/error.hpp"
#include "kopt/measure/bench_assessment.hpp"
#include "kopt/report/bench_table.hpp"

namespace kopt::cli {
namespace {

// A pair a FLAG concerns gets no verdict: the flag says why its times cannot be compared.
std::string verdict_line(const measure::BenchReport& report, const measure::PairVerdict& p) {
  if (measure::verdict_is_flagged(report, p)) {
    return fmt::format("case {}: no verdict for {} against {}: flagged (FLAG above)\n", p.case_name, p.label, p.baseline);
  }
  const measure::Comparison& c = p.comparison;
  return fmt::format("case {}: {} is {} {}: time ratio {:.4f}, 95% CI [{:.4f}, {:.4f}] (minimum effect {:.1f}%)\n",
                     p.case_name, p.label,
                     c.verdict == measure::Verdict::faster   ? "faster than"
                     : c.verdict == measure::Verdict::slower ? "slower than"
                     : c.verdict == measure::Verdict::same   ? "the same speed as"
                                                             : "not distinguishably faster or slower than",
                     p.baseline, c.ratio.ratio, c.ratio.ci.low, c.ratio.ci.high, 100 * c.min_effect);
}

}  // namespace

Command compare_command() {
  return {"compare", "Time A and B interleaved and say which is faster, with a confidence interval", [](CLI::App& app) {
            auto config = std::make_shared<BenchConfig>();
            auto pair = std::make_shared<std::pair<std::string, std::string>>();
            app.add_option("A", pair->first, "The baseline: a .cu file, a folder with kopt.toml, or a kopt.toml")->required();
            app.add_option("B", pair->second, "The candidate (A again measures the noise floor)")->required();
            add_bench_options(app, *config);
            return [config, pair] {
              config->targets = {pair->first, pair->second};
              config->no_reference = true;
              measure::BenchReport report = run_bench_from_config(*config);
              if (config->common.json) {
                std::cout << measure::bench_report_to_json(report).dump(2) << "\n";
              } else {
                std::cout << report::format_bench_report(report);
                for (const measure::PairVerdict& p : report.verdicts) std::cout << verdict_line(report, p);
              }
              return static_cast<int>(report.passed() ? ExitCode::ok : ExitCode::kernel_failed);
            };
          }};
}

}  // namespace kopt::cli
