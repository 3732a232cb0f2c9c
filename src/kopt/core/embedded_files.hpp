#pragma once
// Data files compiled into the binary (see cmake/EmbedFiles.cmake).

#include <span>
#include <string_view>

namespace kopt {

struct EmbeddedFile {
  std::string_view name;  // path relative to the source root, e.g. "data/dtypes.toml"
  std::string_view content;
};

std::span<const EmbeddedFile> embedded_files();

// The content of a data file: read from $KOPT_DATA_DIR/<name> when that variable is set
// (a live source tree), else the embedded copy. Throws Error when neither exists.
std::string data_file(std::string_view name);

}  // namespace kopt
