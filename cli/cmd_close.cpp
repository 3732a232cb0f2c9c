// kopt close RUN: measure the iteration's branches, choose the champion by an interleaved
// re-measurement, profile it, check its methods' SASS, ablate each method, and prepare the
// next iteration. Killed at any point, it resumes where it stopped when run again.
#include <iostream>

#include "command.hpp"
#include "loop_options.hpp"
#include "kopt/loop/experiment_record.hpp"
#include "kopt/report/iteration_text.hpp"

namespace kopt::cli {
namespace {

struct CloseConfig {
  LoopOptions loop;
  std::string run = ".";
  std::optional<int> iteration;
};

}  // namespace

Command close_command() {
  return {"close", "Measure an iteration's branches, choose and ablate the champion, prepare the next iteration",
          [](CLI::App& app) {
            auto config = std::make_shared<CloseConfig>();
            app.add_option("RUN", config->run, "The run folder (default: .)");
            app.add_option("--iter", config->iteration, "The iteration to close (default: the current one)")
                ->check(positive_number());
            add_loop_options(app, config->loop);
            return [config] {
              const loop::RunFolder run(config->run);
              Context kopt_context = context_of(config->loop.common);
              LoopSession session = loop_session(config->loop, run.root());
              std::unique_ptr<loop::Lab> lab = make_lab(config->loop, run.load(), kopt_context);
              loop::require_experiment_records(run);  // a driver's branches; optimize's tuner writes none
              const nlohmann::json verdict =
                  loop::close_iteration(*lab, run, config->iteration, session.context);
              const nlohmann::json next = with_loop_flags(loop::next_step(run, run.load()), config->loop);
              if (config->loop.common.json) {
                std::cout << nlohmann::json{{"iteration", verdict}, {"next", next}}.dump(2) << "\n";
              } else {
                std::cout << report::format_iteration_verdict(verdict) << format_next_step(next);
              }
              return 0;
            };
          }};
}

}  // namespace kopt::cli
