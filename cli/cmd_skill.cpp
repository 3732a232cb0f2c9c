// kopt skill install [--dest DIR]: copies the agent skill (skill/SKILL.md, built into the
// binary) where an AI coding agent looks for skills.
#include <fmt/format.h>

#include <cstdlib>
#include <iostream>

#include "command.hpp"
#include "common_options.hpp"
#include "kopt/core/embedded_files.hpp"
#include "kopt/core/error.hpp"
#include "kopt/core/files.hpp"

namespace kopt::cli {
namespace {
namespace fs = std::filesystem;

// Claude Code's personal skills folder; other agents take --dest.
fs::path default_skill_dir() {
  const char* home = std::getenv("HOME");
  if (home == nullptr || *home == '\0') throw input_error("kopt skill install: $HOME is not set; give --dest DIR");
  return fs::path(home) / ".claude" / "skills" / "kopt";
}

}  // namespace

Command skill_command() {
  return {"skill", "The skill that lets an AI coding agent drive kopt: kopt skill install [--dest DIR]",
          [](CLI::App& app) {
            auto dest = std::make_shared<std::string>();
            CLI::App* install = app.add_subcommand("install", "Copy SKILL.md into DIR (default: ~/.claude/skills/kopt)");
            install->add_option("--dest", *dest, "The folder to write SKILL.md into")->check(output_folder());
            app.require_subcommand(1);
            return [dest] {
              const fs::path dir = dest->empty() ? default_skill_dir() : fs::path(*dest);
              write_file_atomic(dir / "SKILL.md", data_file("skill/SKILL.md"));
              std::cout << fmt::format("wrote {}\n", (dir / "SKILL.md").string());
              return 0;
            };
          }};
}

}  // namespace kopt::cli
