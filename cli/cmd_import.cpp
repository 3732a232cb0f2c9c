// kopt import FILE [--out DIR]: a LeetGPU challenge.py or a Tensara def.py into a
// spec folder, kopt.toml and ref.py, for an unmodified community solution.
#include <fmt/format.h>

#include <iostream>

#include "command.hpp"
#include "common_options.hpp"
#include "kopt/intake/problem_import.hpp"

namespace kopt::cli {
namespace {
namespace fs = std::filesystem;

struct ImportConfig {
  std::string file;
  std::string out;     // default: ./<the definition's folder name>
  std::string format;  // default: by file name
};

int run_import_command(const ImportConfig& config) {
  const intake::ProblemFormat format = intake::problem_format_of(config.file, config.format);
  intake::ImportedProblem problem = intake::import_problem(config.file, format);
  const fs::path folder = config.out.empty() ? fs::path(problem.name) : fs::path(config.out);
  intake::write_imported_problem(problem, folder);
  std::cout << fmt::format("wrote {} and {}\n", (folder / "kopt.toml").string(), (folder / "ref.py").string());
  for (const std::string& note : problem.notes) std::cout << fmt::format("  note: {}\n", note);
  std::cout << fmt::format("next: put the solution's .cu in {} and run kopt check {}\n", folder.string(),
                           folder.string());
  return 0;
}

}  // namespace

Command import_command() {
  return {"import", "Turn a LeetGPU challenge.py or a Tensara def.py into a spec folder (kopt.toml and ref.py)", [](CLI::App& app) {
            auto config = std::make_shared<ImportConfig>();
            app.add_option("FILE", config->file, "The problem definition: challenge.py (LeetGPU) or def.py (Tensara)")->required();
            app.add_option("--out", config->out, "The folder to write (default: ./<the definition's folder name>)")
                ->check(output_folder());
            app.add_option("--format", config->format, "leetgpu or tensara (default: by the file's name)");
            return [config] { return run_import_command(*config); };
          }};
}

}  // namespace kopt::cli
