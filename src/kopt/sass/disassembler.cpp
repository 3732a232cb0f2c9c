#include "kopt/sass/disassembler.hpp"

#include <algorithm>

#include "kopt/core/context.hpp"
#include "kopt/core/error.hpp"

namespace kopt::sass {
namespace fs = std::filesystem;

fs::path find_cuobjdump() { return SystemToolchain().path(Tool::cuobjdump); }

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
