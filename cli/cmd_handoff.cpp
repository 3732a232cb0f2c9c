// kopt handoff RUN: handoff.md, the document another agent or person resumes the run from.
#include <fmt/format.h>

#include <iostream>

#include "command.hpp"
#include "kopt/report/handoff.hpp"

namespace kopt::cli {

Command handoff_command() {
  return {"handoff", "Write the run's handoff.md: state, champion, what worked, what did not and why, open questions, next step",
          [](CLI::App& app) {
            auto run_dir = std::make_shared<std::string>(".");
            app.add_option("RUN", *run_dir, "The run folder (default: .)");
            return [run_dir] {
              const loop::RunFolder run(*run_dir);
              report::write_handoff(run);
              std::cout << fmt::format("wrote {}\n", (run.root() / "handoff.md").string());
              return 0;
            };
          }};
}

}  // namespace kopt::cli
