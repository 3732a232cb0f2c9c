// kopt finalize RUN: the final audit (the champion against the original baseline, interleaved,
// on every case; audit.json), then summary.md of the run (and summary.json, for machines).
#include "command.hpp"
#include "kopt/report/run_summary.hpp"
#include "loop_options.hpp"

namespace kopt::cli {
namespace {

struct FinalizeConfig {
  LoopOptions loop;
  std::string run = ".";
  bool no_audit = false;
};

}  // namespace

Command finalize_command() {
  return {"finalize",
          "Audit the champion against the baseline (interleaved, paired, every case), then write summary.md",
          [](CLI::App& app) {
            auto config = std::make_shared<FinalizeConfig>();
            app.add_option("RUN", config->run, "The run folder (default: .)");
            app.add_flag("--no-audit", config->no_audit,
                         "Write the summary without the final audit (no GPU needed; the speedup is then a ratio of "
                         "medians measured apart)");
            add_loop_options(app, config->loop);
            return [config] { return finalize_run(config->loop, config->run, !config->no_audit); };
          }};
}

}  // namespace kopt::cli
