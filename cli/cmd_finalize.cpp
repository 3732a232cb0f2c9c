// kopt finalize RUN: summary.md of the run (and summary.json, the same facts for machines).
#include <fmt/format.h>

#include <iostream>

#include "command.hpp"
#include "kopt/report/run_summary.hpp"
#include "loop_options.hpp"

namespace kopt::cli {

Command finalize_command() {
  return {"finalize", "Write the run's summary.md: speedups, iterations, method ledger, frontier, rejections",
          [](CLI::App& app) {
            auto run_dir = std::make_shared<std::string>(".");
            auto json = std::make_shared<bool>(false);
            app.add_option("RUN", *run_dir, "The run folder (default: .)");
            app.add_flag("--json", *json, "Print the summary as one JSON document");
            return [run_dir, json] {
              const loop::RunFolder run(*run_dir);
              const nlohmann::json summary = report::write_run_summary(run);
              if (*json) std::cout << summary.dump(2) << "\n";
              else std::cout << report::format_run_summary(summary) << fmt::format("\nwrote {}\n", (run.root() / "summary.md").string());
              return 0;
            };
          }};
}

}  // namespace kopt::cli
