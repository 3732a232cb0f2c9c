#include "kopt/sass/disassembler.hpp"

#include <algorithm>
#include <cstdlib>

#include "kopt/core/error.hpp"

namespace kopt::sass {
namespace fs = std::filesystem;

fs::path find_cuobjdump() {
  if (const char* explicit_tool = std::getenv("KOPT_CUOBJDUMP"); explicit_tool && *explicit_tool) {
    if (auto found = find_program(explicit_tool)) return *found;
    throw environment_error("KOPT_CUOBJDUMP={} is not an executable", explicit_tool);
  }
  std::vector<fs::path> extra;
  if (const char* home = std::getenv("CUDA_HOME"); home && *home) extra.push_back(fs::path(home) / "bin");
  extra.emplace_back("/usr/local/cuda/bin");
  if (auto found = find_program("cuobjdump", extra)) return *found;
  throw environment_error(
      "cuobjdump not found (looked on PATH, $CUDA_HOME/bin and /usr/local/cuda/bin): install the CUDA toolkit, or "
      "`pip install nvidia-cuda-cuobjdump nvidia-cuda-nvdisasm` and put their bin folder on PATH");
}

SassDump disassemble(ProcessRunner& runner, const fs::path& cuobjdump, const fs::path& library) {
  ProcessSpec spec{.argv = {cuobjdump.string(), "-sass", library.string()}, .time_limit = std::chrono::seconds(120)};
  ProcessResult result = runner.run(spec);
  if (!result.ok()) {
    throw environment_error("{} {}: {}", shell_quote_command(spec.argv), result.outcome(), result.output_tail(3));
  }
  return parse_cuobjdump_sass(result.out);
}

SassProfile kernel_profile(const SassDump& dump) {
  SassProfile profile = profile_dump(dump);
  std::erase_if(profile.functions, [](const SassFunctionProfile& f) {
    return f.name.find("kopt_shim_") != std::string::npos;
  });
  return profile;
}

}  // namespace kopt::sass
