#pragma once
// Where a kernel that includes CUTLASS or CuTe headers (#include "cutlass/..." or "cute/...")
// finds them, so that such a kernel compiles without hand-written -I flags. In order:
//   1. [build] cutlass in kopt.toml (turned into -I flags when the spec is read);
//   2. -I flags of the spec or the command line that already reach cutlass/cutlass.h;
//   3. $CUTLASS_PATH (a CUTLASS checkout: its include/ and tools/util/include/);
//   4. the nvidia-cutlass Python package (cutlass_library/source/include/, as its wheel ships
//      the C++ headers there).
// A kernel that includes them when none of these has them is refused with one line.

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "kopt/core/process.hpp"

namespace kopt::build {

// What the search consults besides the flags: injected, so tests use fake folders.
struct CutlassSearch {
  std::optional<std::string> cutlass_path;                          // $CUTLASS_PATH, unset: none
  std::function<std::optional<std::filesystem::path>()> python_package;  // cutlass_library's folder
};

// The include folders a CUTLASS root holds: the one with cutlass/cutlass.h (root/include,
// root/source/include for the Python package, or root itself), then its tools/util/include
// when there is one (cutlass/util/...). Empty when none has cutlass/cutlass.h.
std::vector<std::filesystem::path> cutlass_include_dirs(const std::filesystem::path& root);

// Whether `source` or one of `local_headers` includes a cutlass/ or cute/ header.
bool includes_cutlass(const std::filesystem::path& source,
                      const std::vector<std::filesystem::path>& local_headers);

// Whether a -I folder of `flags` holds cutlass/cutlass.h.
bool flags_reach_cutlass(const std::vector<std::string>& flags);

// -I flags for the first of $CUTLASS_PATH and the Python package that holds CUTLASS. Throws
// an environment error (exit 3) naming every place looked at when neither does; a
// $CUTLASS_PATH without CUTLASS is an error of its own rather than silently passed over.
std::vector<std::string> cutlass_include_flags(const CutlassSearch& search, const std::string& kernel_name);

// $CUTLASS_PATH, and `python` asked (through `runner`) where cutlass_library is installed.
CutlassSearch system_cutlass_search(ProcessRunner& runner, std::string python = "python3");

}  // namespace kopt::build
