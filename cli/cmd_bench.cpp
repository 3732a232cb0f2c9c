// kopt bench KERNEL...: check, then time the kernels interleaved, with a verdict for each
// against the first.
#include <iostream>

#include "bench_options.hpp"
#include "command.hpp"
#include "kopt/core/error.hpp"
#include "kopt/report/bench_table.hpp"

namespace kopt::cli {

Command bench_command() {
  return {"bench", "Check, then time kernels interleaved; each is compared with the first", [](CLI::App& app) {
            auto config = std::make_shared<BenchConfig>();
            app.add_option("KERNEL", config->targets, "Kernels (.cu, folder with kopt.toml, or kopt.toml)")->required();
            add_bench_options(app, *config);
            return [config] {
              measure::BenchReport report = run_bench_from_config(*config);
              if (config->common.json) std::cout << measure::bench_report_to_json(report).dump(2) << "\n";
              else std::cout << report::format_bench_report(report);
              return static_cast<int>(report.passed() ? ExitCode::ok : ExitCode::kernel_failed);
            };
          }};
}

}  // namespace kopt::cli
