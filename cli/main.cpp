// kopt: optimizes CUDA kernels. This file only dispatches to the subcommands; every one of
// them is a thin layer over the library.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cstdio>
#include <functional>

#include "command.hpp"
#include "kopt/core/error.hpp"

int main(int argc, char** argv) {
  CLI::App app{"kopt: prove a CUDA kernel correct, measure it honestly, and make it faster", "kopt"};
  app.set_version_flag("--version", KOPT_VERSION);
  app.require_subcommand(1);
  std::function<int()> selected;
  std::vector<std::pair<CLI::App*, std::function<int()>>> commands;
  for (const kopt::cli::Command& command : kopt::cli::all_commands()) {
    CLI::App* sub = app.add_subcommand(command.name, command.description);
    commands.emplace_back(sub, command.setup(*sub));
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? 0 : static_cast<int>(kopt::ExitCode::bad_input);
  }
  try {
    for (auto& [sub, run] : commands) {
      if (sub->parsed()) return run();
    }
    return static_cast<int>(kopt::ExitCode::bad_input);
  } catch (const kopt::Error& e) {
    std::fprintf(stderr, "kopt: %s\n", e.what());
    return static_cast<int>(e.code());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "kopt: internal error: %s\n", e.what());
    return 70;
  }
}
