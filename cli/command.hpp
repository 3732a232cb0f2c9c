#pragma once
// A kopt subcommand: its options are registered on a CLI11 subcommand, parsed into a
// config struct the command owns, and run returns the exit code. One file per command.

#include <CLI/CLI.hpp>

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace kopt::cli {

struct Command {
  std::string name;
  std::string description;
  // Registers the options on `app` (the subcommand) and returns the function that runs it.
  std::function<std::function<int()>(CLI::App& app)> setup;
  bool internal = false;  // started by kopt itself (worker, lab-job): never listed to a user
};

Command check_command();
Command worker_command();
Command lab_job_command();
Command doctor_command();
Command bench_command();
Command compare_command();
Command sass_command();
Command profile_command();
Command roofline_command();
Command plan_command();
Command init_command();
Command close_command();
Command status_command();
Command finalize_command();
Command handoff_command();
Command evidence_command();
Command optimize_command();
Command skill_command();
Command report_command();
Command import_command();
Command tune_space_command();
Command catalog_command();
Command workload_command();
Command export_command();

// The commands in the order `kopt --help` lists them.
inline std::vector<Command> all_commands() {
  return {doctor_command(), check_command(),  bench_command(),    compare_command(),  profile_command(),
          roofline_command(), sass_command(), plan_command(),     catalog_command(),  evidence_command(),     workload_command(), init_command(),     close_command(),
          status_command(),  finalize_command(), handoff_command(), optimize_command(), report_command(),  export_command(), import_command(),
          tune_space_command(), skill_command(), worker_command(), lab_job_command()};
}

}  // namespace kopt::cli
