#include "kopt/loop/builtin_generators.hpp"

#include <algorithm>
#include <array>
#include <string_view>

#include "kopt/core/embedded_files.hpp"
#include "kopt/core/error.hpp"
#include "kopt/core/files.hpp"
#include "kopt/core/process.hpp"

namespace kopt::loop {

namespace {
constexpr std::string_view kPrefix = "kopt:";
constexpr std::array<std::string_view, 3> kAdapters = {"http", "claude", "codex"};
}  // namespace

std::string checked_generator(const std::string& generator) {
  if (!generator.starts_with(kPrefix)) return generator;
  const std::string_view name = std::string_view(generator).substr(kPrefix.size());
  if (std::find(kAdapters.begin(), kAdapters.end(), name) == kAdapters.end()) {
    throw input_error("--generator {}: kopt's generators are kopt:http, kopt:claude and kopt:codex", generator);
  }
  return generator;
}

std::string generator_shell_command(const std::string& generator, const std::filesystem::path& run_root) {
  if (!checked_generator(generator).starts_with(kPrefix)) return generator;
  const std::string name = generator.substr(kPrefix.size());
  // The adapter is a file in the run (not `python -c`): the agent CLIs it starts, and a reader
  // of the run, see exactly what ran.
  const std::filesystem::path script = run_root / "kopt_llm_generator.py";
  write_file_atomic(script, data_file("python/kopt_llm_generator.py"));
  // -I: no user site-packages or PYTHONPATH; the adapter needs only the standard library.
  return shell_quote_command({find_python().string(), "-I", std::filesystem::absolute(script).string(), name});
}

}  // namespace kopt::loop
