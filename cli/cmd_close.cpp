// kopt close RUN: measure the iteration's branches, choose the champion by an interleaved
// re-measurement, profile it, check its methods' SASS, ablate each method, and prepare the
// next iteration. Killed at any point, it resumes where it stopped when run again.
#include <fmt/format.h>

#include <iostream>

#include "command.hpp"
#include "loop_options.hpp"
#include "kopt/loop/experiment_record.hpp"

namespace kopt::cli {
namespace {

struct CloseConfig {
  LoopOptions loop;
  std::string run = ".";
  std::optional<int> iteration;
};

std::string format_verdict(const nlohmann::json& v) {
  std::string text = fmt::format("iteration {}: {}", v.at("index").get<int>(), v.at("verdict").get<std::string>());
  if (v.contains("speedup_vs_best")) {
    text += fmt::format(" — champion {} is {:.3f}× the best [{:.3f}, {:.3f}]", v.at("champion").get<std::string>(),
                        v.at("speedup_vs_best").get<double>(), v.at("speedup_vs_best_ci").at(0).get<double>(),
                        v.at("speedup_vs_best_ci").at(1).get<double>());
  }
  text += "\n";
  for (const auto& m : v.value("methods", nlohmann::json::array())) {
    text += fmt::format("  {:<40} {}", m.at("id").get<std::string>(), m.value("class", ""));
    if (m.contains("time_ratio_without")) {
      text += fmt::format("  (without it: {:.3f}× the time)", m.at("time_ratio_without").get<double>());
    }
    text += "\n";
  }
  return text;
}

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
              const std::unique_ptr<ResultCache> cache = open_result_cache(config->loop);
              loop::LoopContext context = progress_hooks(config->loop.common, run.root());
              context.cache = cache.get();
              std::unique_ptr<loop::Lab> lab = make_lab(config->loop, run.load(), kopt_context);
              loop::require_experiment_records(run);  // a driver's branches; optimize's tuner writes none
              const nlohmann::json verdict =
                  loop::close_iteration(*lab, run, config->iteration, context);
              const nlohmann::json next = with_loop_flags(loop::next_step(run, run.load()), config->loop);
              if (config->loop.common.json) {
                std::cout << nlohmann::json{{"iteration", verdict}, {"next", next}}.dump(2) << "\n";
              } else {
                std::cout << format_verdict(verdict) << format_next_step(next);
              }
              return 0;
            };
          }};
}

}  // namespace kopt::cli
