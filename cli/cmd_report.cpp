// kopt report RUN: summary.md, summary.json and a self-contained report.html with charts.
#include <fmt/format.h>

#include <iostream>

#include "command.hpp"
#include "kopt/report/html_report.hpp"

namespace kopt::cli {

Command report_command() {
  return {"report", "Write the run's report.html (charts, no network) with summary.md and summary.json",
          [](CLI::App& app) {
            auto run_dir = std::make_shared<std::string>(".");
            auto json = std::make_shared<bool>(false);
            app.add_option("RUN", *run_dir, "The run folder (default: .)");
            app.add_flag("--json", *json, "Print the summary as one JSON document");
            return [run_dir, json] {
              const loop::RunFolder run(*run_dir);
              const nlohmann::json summary = report::write_html_report(run);
              if (*json) std::cout << summary.dump(2) << "\n";
              else std::cout << fmt::format("wrote {}\n", (run.root() / "report.html").string());
              return 0;
            };
          }};
}

}  // namespace kopt::cli
