// kopt: optimizes CUDA kernels. This file only dispatches to the subcommands; every one of
// them is a thin layer over the library.
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <optional>
#include <string_view>
#include <vector>

#include "command.hpp"
#include "error_report.hpp"
#include "suggest.hpp"
#include "kopt/core/error.hpp"
#include "kopt/core/interrupt.hpp"

namespace {

std::vector<std::string> user_command_names(const std::vector<kopt::cli::Command>& commands) {
  std::vector<std::string> names;
  for (const kopt::cli::Command& command : commands) {
    if (!command.internal) names.push_back(command.name);
  }
  return names;
}

bool names_a_command(std::string_view word, const std::vector<kopt::cli::Command>& commands) {
  return std::ranges::any_of(commands, [&](const kopt::cli::Command& c) { return c.name == word; });
}

// A first word that names no command: refused before CLI11 sees it, which would otherwise
// answer `kopt teleport --help` with the main help and exit 0.
std::optional<std::string> unknown_command(std::string_view word, const std::vector<kopt::cli::Command>& commands) {
  if (word.starts_with('-') || names_a_command(word, commands)) return std::nullopt;
  const std::vector<std::string> names = user_command_names(commands);
  if (const std::optional<std::string> near = kopt::cli::closest(word, names)) {
    return fmt::format("unknown command \"{}\" (did you mean {}? kopt help lists every command)", word, *near);
  }
  return fmt::format("unknown command \"{}\" (commands: {})", word, fmt::join(names, ", "));
}

// `kopt help` and `kopt help COMMAND` are `kopt --help` and `kopt COMMAND --help`, as in cargo.
std::vector<std::string> arguments_of(int argc, char** argv) {
  std::vector<std::string> args(argv, argv + argc);
  if (args.size() >= 2 && args[1] == "help") {
    args.erase(args.begin() + 1);
    args.insert(args.size() >= 2 ? args.begin() + 2 : args.end(), "--help");
  }
  return args;
}

// Help without the parser's own notation: CLI11 appends each check's description to the type
// ("INT:INT in [1 - 1000]", "UINT:UINT:UINT in [1 - 9007199254740992]"). A range is said in the
// error that breaks it; a choice ({local,slurm}) stays, it is what the user picks from.
void tidy_help(CLI::App& app) {
  for (CLI::Option* option : app.get_options()) {
    for (int i = 0;; ++i) {
      CLI::Validator* check = nullptr;
      try {
        check = option->get_validator(i);
      } catch (const CLI::OptionNotFound&) {
        break;
      }
      const std::string description = check->get_description();
      if (!description.starts_with('{')) check->description("");
    }
  }
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) tidy_help(*sub);
}

}  // namespace

int main(int argc, char** argv) {
  // First: every thread started later inherits the blocked signals (core/interrupt.hpp).
  kopt::install_interrupt_handler();
  const bool json = kopt::cli::asks_for_json(argc, argv);
  CLI::App app{"kopt: prove a CUDA kernel correct, measure it honestly, and make it faster", "kopt"};
  app.set_version_flag("--version", KOPT_VERSION);
  app.require_subcommand(1);
  app.footer("kopt help COMMAND (or kopt COMMAND --help) shows a command's options and their defaults.");
  const std::vector<kopt::cli::Command> all = kopt::cli::all_commands();
  std::vector<std::string> args = arguments_of(argc, argv);
  if (args.size() >= 2) {
    if (auto unknown = unknown_command(args[1], all)) return kopt::cli::report_error(kopt::ExitCode::bad_input, *unknown, json);
  }
  std::vector<std::pair<CLI::App*, std::function<int()>>> commands;
  for (const kopt::cli::Command& command : all) {
    CLI::App* sub = app.add_subcommand(command.name, command.description);
    commands.emplace_back(sub, command.setup(*sub));
  }
  tidy_help(app);
  try {
    // CLI11 takes the arguments last first, without the program's name.
    std::reverse(args.begin(), args.end());
    args.pop_back();
    app.parse(args);
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
