// kopt report RUN [--out DIR]: report.html in DIR (default: the run), the run only read.
// kopt report --compare RUN_A RUN_B [--out DIR]: compare.html, compare.md and compare.json.
#include <fmt/format.h>

#include <iostream>

#include "command.hpp"
#include "kopt/report/html_report.hpp"
#include "kopt/report/run_comparison.hpp"
#include "kopt/report/workload_report.hpp"
#include "loop_options.hpp"

namespace kopt::cli {
namespace {

struct ReportConfig {
  std::string run_dir = ".";
  bool json = false;
  std::vector<std::string> compare;  // RUN_A RUN_B
  std::string out_dir;  // default: the run, or with --compare the current folder
};

int write_report(const ReportConfig& config) {
  const std::filesystem::path out(config.out_dir.empty() ? config.run_dir : config.out_dir);
  if (report::is_workload_session(config.run_dir)) {  // a kopt workload session, not a loop run
    const nlohmann::json workload = report::write_workload_report(config.run_dir, out);
    if (config.json) std::cout << workload.dump(2) << "\n";
    else std::cout << fmt::format("wrote {}\n", (out / "report.html").string());
    return 0;
  }
  const nlohmann::json summary = report::write_html_report(loop::RunFolder(config.run_dir), out);
  if (config.json) std::cout << summary.dump(2) << "\n";
  else std::cout << fmt::format("wrote {}\n", (out / "report.html").string());
  return 0;
}

int write_comparison(const ReportConfig& config) {
  const std::filesystem::path out(config.out_dir.empty() ? "." : config.out_dir);
  const nlohmann::json comparison =
      report::write_run_comparison(loop::RunFolder(config.compare.at(0)), loop::RunFolder(config.compare.at(1)), out);
  if (config.json) std::cout << comparison.dump(2) << "\n";
  else std::cout << report::format_comparison_headline(comparison)
                 << fmt::format("wrote {}, compare.md and compare.json\n", (out / "compare.html").string());
  return 0;
}

}  // namespace

Command report_command() {
  return {"report",
          "Write the run's report.html (charts, no network; the run's files are only read); with --compare, a "
          "comparison of two runs",
          [](CLI::App& app) {
            auto config = std::make_shared<ReportConfig>();
            CLI::Option* run = app.add_option("RUN", config->run_dir, "The run folder, or a kopt workload session (default: .)");
            app.add_flag("--json", config->json, "Print the summary (with --compare: the comparison) as one JSON document");
            CLI::Option* compare =
                app.add_option("--compare", config->compare,
                               "Compare two runs instead: write compare.html, compare.md and compare.json (kopt.compare/1)")
                    ->expected(2)
                    ->type_name("RUN")
                    ->excludes(run);
            app.add_option("--out", config->out_dir,
                           "The folder report.html (with --compare: the comparison) is written in (default: the run; "
                           "with --compare: .)")
                ->check(output_folder());
            return [config] { return config->compare.empty() ? write_report(*config) : write_comparison(*config); };
          }};
}

}  // namespace kopt::cli
