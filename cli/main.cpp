// kopt: optimizes CUDA kernels. This file only dispatches to the subcommands; every one of
// them is a thin layer over the library.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cstdio>
#include <filesystem>
#include <functional>
#include <optional>
#include <string_view>

#include "command.hpp"
#include "error_report.hpp"
#include "kopt/core/error.hpp"
#include "kopt/core/interrupt.hpp"

namespace {

// A first word that names no command: refused before CLI11 sees it, which would otherwise
// answer `kopt teleport --help` with the main help and exit 0.
std::optional<std::string> unknown_command(int argc, char** argv, const std::vector<kopt::cli::Command>& commands) {
  if (argc < 2 || argv[1][0] == '-') return std::nullopt;
  const std::string_view word = argv[1];
  for (const kopt::cli::Command& command : commands) {
    if (command.name == word) return std::nullopt;
  }
  std::string names;
  for (const kopt::cli::Command& command : commands) {
    if (command.name != "worker") names += (names.empty() ? "" : ", ") + command.name;
  }
  return fmt::format("unknown command \"{}\" (commands: {})", word, names);
}

}  // namespace

int main(int argc, char** argv) {
  // First: every thread started later inherits the blocked signals (core/interrupt.hpp).
  kopt::install_interrupt_handler();
  const bool json = kopt::cli::asks_for_json(argc, argv);
  CLI::App app{"kopt: prove a CUDA kernel correct, measure it honestly, and make it faster", "kopt"};
  app.set_version_flag("--version", KOPT_VERSION);
  app.require_subcommand(1);
  const std::vector<kopt::cli::Command> all = kopt::cli::all_commands();
  if (auto unknown = unknown_command(argc, argv, all)) {
    return kopt::cli::report_error(kopt::ExitCode::bad_input, *unknown, json);
  }
  std::vector<std::pair<CLI::App*, std::function<int()>>> commands;
  for (const kopt::cli::Command& command : all) {
    CLI::App* sub = app.add_subcommand(command.name, command.description);
    commands.emplace_back(sub, command.setup(*sub));
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    return kopt::cli::report_usage_error(app, e, json);
  }
  try {
    for (auto& [sub, run] : commands) {
      if (sub->parsed()) return run();
    }
    return static_cast<int>(kopt::ExitCode::bad_input);
  } catch (const kopt::Error& e) {
    return kopt::cli::report_error(e.code(), e.what(), json);
  } catch (const std::filesystem::filesystem_error& e) {
    return kopt::cli::report_filesystem_error(e, json);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "kopt: internal error: %s\n", e.what());
    return 70;
  }
}
