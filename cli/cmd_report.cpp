// kopt report RUN: summary.md, summary.json and a self-contained report.html with charts.
#include "command.hpp"
#include "loop_options.hpp"

namespace kopt::cli {

Command report_command() {
  return summary_command("report", "Write the run's report.html (charts, no network) with summary.md and summary.json",
                         SummaryOutput::html);
}

}  // namespace kopt::cli
