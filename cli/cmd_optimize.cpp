// kopt optimize KERNEL: the whole loop unattended — branches from the built-in tuner (declared
// parameters) or from --generator CMD — then the final audit and summary.md. An existing --run is resumed.
#include <fmt/format.h>

#include "command.hpp"
#include "loop_options.hpp"
#include "kopt/loop/builtin_generators.hpp"

namespace kopt::cli {
namespace {

struct OptimizeConfig {
  LoopOptions loop;
  RunTarget target{.settings = {.iterations = 10, .branches = 8}};
  std::string generator;
  double budget_minutes = 15;
  std::uint64_t seed = 1;
  std::string strategy = "auto";
  bool new_run_on_change = false;
};

}  // namespace

Command optimize_command() {
  return {"optimize", "The whole loop, unattended: tuner or --generator branches, until done, near peak or out of time",
          [](CLI::App& app) {
            auto config = std::make_shared<OptimizeConfig>();
            add_run_target_options(app, config->target);
            app.add_option("--generator", config->generator,
                           "A command that writes each iteration's branches; it gets the context file's path "
                           "(kopt.generator_context/1) as its last argument. kopt:http, kopt:claude, kopt:codex: "
                           "kopt's LLM adapters (docs/guide.md)");
            app.add_option("--budget", config->budget_minutes,
                           fmt::format("Stop starting iterations after this many minutes of search (counted after "
                                       "init's baseline; default: {:g})", config->budget_minutes))
                ->check(positive_number());
            app.add_option("--tuner-seed", config->seed, "The tuner's random seed (--seed, elsewhere, is the inputs')")->check(unsigned_integer());
            app.add_option("--strategy", config->strategy, "The tuner's search: auto (by the budget), random, local, model, annealing")
                ->check(CLI::IsMember({"auto", "random", "local", "model", "annealing"}));
            app.add_flag("--new-run-on-change", config->new_run_on_change,
                         "When --run holds a run whose spec or reference changed since its init, start a new run "
                         "beside it (DIR-2, ...) instead of refusing");
            add_loop_options(app, config->loop);
            return [config, &app] {
              loop::OptimizeRequest request{.init = init_request(config->target),
                                            .time_budget_s = config->budget_minutes * 60,
                                            .seed = config->seed,
                                            .strategy = config->strategy};
              if (!config->generator.empty()) request.generator = loop::checked_generator(config->generator);
              return run_unattended(config->loop, std::move(request), config->new_run_on_change, app);
            };
          }};
}

}  // namespace kopt::cli
