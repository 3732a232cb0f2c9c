// kopt status RUN: where a run stands and what its driver does next.
#include <fmt/format.h>

#include <iostream>

#include "command.hpp"
#include "loop_options.hpp"

namespace kopt::cli {
namespace {

// "iter1/champion BM=128 BN=64": its label, and its defines when it has any.
std::string best_text(const loop::Variant& best) {
  return best.defines.empty() ? best.label : best.label + " " + loop::describe_defines(best.defines);
}

}  // namespace


Command status_command() {
  return {"status", "Where a run stands, and the next step", [](CLI::App& app) {
            auto run_dir = std::make_shared<std::string>(".");
            auto json = std::make_shared<bool>(false);
            app.add_option("RUN", *run_dir, "The run folder (default: .)");
            app.add_flag("--json", *json, "Print one JSON document");
            return [run_dir, json] {
              const loop::RunFolder run(*run_dir);
              const loop::RunState state = run.load();
              // The next step on the lab the run was measured on: a simulated run's close needs its model.
              LoopOptions recorded = recorded_loop_options(run);
              recorded.common.json = *json;
              const nlohmann::json next = with_loop_flags(loop::next_step(run, state), recorded);
              if (*json) {
                std::cout << nlohmann::json{{"state", state}, {"next", next}}.dump(2) << "\n";
                return 0;
              }
              std::cout << fmt::format("{}: {}\n  baseline {:.2f} µs, best {:.2f} µs ({:.2f}×, iteration {}: {})\n",
                                       run.root().string(), state.kernel.string(), state.baseline_median_s * 1e6,
                                       state.best_median_s * 1e6, state.baseline_median_s / state.best_median_s,
                                       state.best_iteration, best_text(state.best));
              for (const loop::IterationState& it : state.iterations) {
                std::cout << fmt::format("  iter{}: {}{}\n", it.index, it.status,
                                         it.status == "closed" ? " — " + it.verdict : "");
              }
              std::cout << format_next_step(next);
              return 0;
            };
          }};
}

}  // namespace kopt::cli
