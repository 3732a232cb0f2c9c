// kopt init KERNEL: create a run folder, measure, profile and plan the baseline, and say what
// the driver of the loop writes next.
#include <fmt/format.h>

#include <ctime>
#include <iostream>

#include "command.hpp"
#include "loop_options.hpp"
#include "problem_options.hpp"
#include "kopt/core/error.hpp"
#include "kopt/spec/problem_spec.hpp"

namespace kopt::cli {
namespace {
namespace fs = std::filesystem;

struct InitConfig {
  LoopOptions loop;
  RunTarget target;
};

}  // namespace

Command init_command() {
  return {"init", "Start a run: measure, profile and plan the baseline; say what to write next", [](CLI::App& app) {
            auto config = std::make_shared<InitConfig>();
            add_run_target_options(app, config->target);
            add_loop_options(app, config->loop);
            return [config] {
              const loop::InitRequest request = init_request(config->target);
              Context kopt_context = context_of(config->loop.common);
              LoopSession session = loop_session(config->loop, request.run_dir);
              std::unique_ptr<loop::Lab> lab = make_lab(config->loop, provisional_state(request), kopt_context);
              const loop::RunState state = loop::init_run(*lab, request, session.context);
              const loop::RunFolder run(request.run_dir);
              const nlohmann::json next = with_loop_flags(loop::next_step(run, state), config->loop);
              if (config->loop.common.json) {
                std::cout << next.dump(2) << "\n";
              } else {
                std::cout << fmt::format("kopt init: {} — baseline {:.2f} µs\n", run.root().string(),
                                         state.baseline_median_s * 1e6)
                          << format_next_step(next);
              }
              return 0;
            };
          }};
}

}  // namespace kopt::cli
