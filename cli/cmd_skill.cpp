// kopt skill install [--dest DIR]: copies the agent skill (skill/SKILL.md and its rehearsal
// model, built into the binary) where an AI coding agent looks for skills.
// kopt skill rehearsal [--dest DIR] [--json]: writes the rehearsal model alone, wherever kopt runs.
#include <fmt/format.h>

#include <cstdlib>
#include <iostream>

#include "command.hpp"
#include "common_options.hpp"
#include "kopt/core/embedded_files.hpp"
#include "kopt/core/error.hpp"
#include "kopt/core/file_queries.hpp"
#include "kopt/core/files.hpp"
#include "kopt/loop/simulated_lab.hpp"

#include <nlohmann/json.hpp>

namespace kopt::cli {
namespace {
namespace fs = std::filesystem;

// Claude Code's personal skills folder; other agents take --dest.
fs::path default_skill_dir() {
  const char* home = std::getenv("HOME");
  if (home == nullptr || *home == '\0') throw input_error("kopt skill install: $HOME is not set; give --dest DIR");
  return fs::path(home) / ".claude" / "skills" / "kopt";
}

// SKILL.md written into `dir`, unless one is there already that differs from kopt's (a user's
// edits are not replaced without --force). Returns what happened, for the line printed.
std::string install_skill(const fs::path& dir, bool force) {
  const fs::path file = dir / "SKILL.md";
  const std::string skill = data_file("skill/SKILL.md");
  if (is_file(file) && read_file(file) == skill) return "unchanged";
  if (path_exists(file) && !force) {
    throw input_error("{}: a SKILL.md is there and differs from kopt's (edited, or another version); --force "
                      "replaces it", file.string());
  }
  write_file_atomic(file, skill);
  return "wrote";
}

}  // namespace

Command skill_command() {
  return {"skill", "The skill that lets an AI coding agent drive kopt: kopt skill install [--dest DIR] | rehearsal",
          [](CLI::App& app) {
            auto dest = std::make_shared<std::string>();
            auto json = std::make_shared<bool>(false);
            CLI::App* install = app.add_subcommand(
                "install", "Copy SKILL.md and its rehearsal model (rehearsal/) into DIR (default: ~/.claude/skills/kopt)");
            auto force = std::make_shared<bool>(false);
            install->add_option("--dest", *dest, "The folder to write SKILL.md into")->check(output_folder());
            install->add_flag("--force", *force, "Replace a SKILL.md there that differs from kopt's");
            CLI::App* rehearsal = app.add_subcommand(
                "rehearsal", "Write the rehearsal model (--simulate MODEL) and its evidence into DIR (default: kopt_rehearsal)");
            rehearsal->add_option("--dest", *dest, "The folder to write model.json and evidence/ into")->check(output_folder());
            rehearsal->add_flag("--json", *json, "Print one JSON document: {\"model\": PATH}");
            app.require_subcommand(1);
            return [dest, json, install, force] {
              if (install->parsed()) {
                const fs::path dir = dest->empty() ? default_skill_dir() : fs::path(*dest);
                const std::string done = install_skill(dir, *force);
                const fs::path model = loop::write_rehearsal_model(dir / "rehearsal");
                std::cout << fmt::format("{} {}; wrote {}\n", done, (dir / "SKILL.md").string(), model.string());
                return 0;
              }
              const fs::path model = fs::absolute(loop::write_rehearsal_model(dest->empty() ? "kopt_rehearsal" : *dest));
              if (*json) std::cout << nlohmann::json{{"model", model.string()}}.dump(2) << "\n";
              else std::cout << fmt::format("wrote {} (kopt init ... --simulate {})\n", model.string(), model.string());
              return 0;
            };
          }};
}

}  // namespace kopt::cli
