// kopt finalize RUN: summary.md of the run (and summary.json, the same facts for machines).
#include "command.hpp"
#include "loop_options.hpp"

namespace kopt::cli {

Command finalize_command() {
  return summary_command("finalize", "Write the run's summary.md: speedups, iterations, method ledger, frontier, rejections",
                         SummaryOutput::markdown);
}

}  // namespace kopt::cli
