#include "kopt/core/embedded_files.hpp"

#include <cstdlib>
#include <filesystem>

#include "kopt/core/error.hpp"
#include "kopt/core/files.hpp"

namespace kopt {

std::string data_file(std::string_view name) {
  if (const char* root = std::getenv("KOPT_DATA_DIR"); root != nullptr && *root != '\0') {
    return read_file(std::filesystem::path(root) / name);
  }
  for (const EmbeddedFile& file : embedded_files()) {
    if (file.name == name) return std::string(file.content);
  }
  throw Error(ExitCode::environment, fmt::format("kopt was built without its data file {}", name));
}

}  // namespace kopt
