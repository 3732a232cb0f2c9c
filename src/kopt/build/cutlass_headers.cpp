#include "kopt/build/cutlass_headers.hpp"

#include <cstdlib>
#include <regex>
#include <sstream>

#include "kopt/core/error.hpp"
#include "kopt/core/file_queries.hpp"
#include "kopt/core/files.hpp"

namespace kopt::build {
namespace fs = std::filesystem;

namespace {

bool holds_cutlass(const fs::path& dir) {
  return is_file(dir / "cutlass" / "cutlass.h");
}

bool file_includes_cutlass(const fs::path& file) {
  static const std::regex kInclude(R"re(^\s*#\s*include\s*[<"](cutlass|cute)/)re");
  std::string text;
  try {
    text = read_file(file);
  } catch (const Error&) {
    return false;  // nvcc reports an unreadable file itself
  }
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (std::regex_search(line, kInclude)) return true;
  }
  return false;
}

std::vector<std::string> as_flags(const std::vector<fs::path>& dirs) {
  std::vector<std::string> flags;
  for (const fs::path& dir : dirs) flags.push_back("-I" + dir.string());
  return flags;
}

}  // namespace

std::vector<fs::path> cutlass_include_dirs(const fs::path& root) {
  for (const fs::path& base : {root, root / "source"}) {
    if (!holds_cutlass(base / "include")) continue;
    std::vector<fs::path> dirs{resolved_path(base / "include")};
    if (is_folder(base / "tools" / "util" / "include")) {
      dirs.push_back(resolved_path(base / "tools" / "util" / "include"));
    }
    return dirs;
  }
  if (holds_cutlass(root)) return {resolved_path(root)};
  return {};
}

bool includes_cutlass(const fs::path& source, const std::vector<fs::path>& local_headers) {
  if (file_includes_cutlass(source)) return true;
  for (const fs::path& header : local_headers) {
    if (file_includes_cutlass(header)) return true;
  }
  return false;
}

bool flags_reach_cutlass(const std::vector<std::string>& flags) {
  for (std::size_t i = 0; i < flags.size(); ++i) {
    if (flags[i] == "-I" && i + 1 < flags.size() && holds_cutlass(flags[i + 1])) return true;
    if (flags[i].starts_with("-I") && flags[i].size() > 2 && holds_cutlass(flags[i].substr(2))) return true;
  }
  return false;
}

std::vector<std::string> cutlass_include_flags(const CutlassSearch& search, const std::string& kernel_name) {
  if (search.cutlass_path && !search.cutlass_path->empty()) {
    std::vector<fs::path> dirs = cutlass_include_dirs(*search.cutlass_path);
    if (dirs.empty()) {
      throw environment_error("CUTLASS_PATH={} holds no include/cutlass/cutlass.h (needed by {})",
                              *search.cutlass_path, kernel_name);
    }
    return as_flags(dirs);
  }
  const std::optional<fs::path> package = search.python_package ? search.python_package() : std::nullopt;
  if (package) {
    std::vector<fs::path> dirs = cutlass_include_dirs(*package);
    if (!dirs.empty()) return as_flags(dirs);
  }
  throw environment_error(
      "{} includes CUTLASS/CuTe headers and none were found: set [build] cutlass in kopt.toml or "
      "CUTLASS_PATH to a CUTLASS checkout, or pip install nvidia-cutlass{}",
      kernel_name, package ? fmt::format(" (the one in {} has no source/include/cutlass)", package->string()) : "");
}

CutlassSearch system_cutlass_search(ProcessRunner& runner, std::string python) {
  CutlassSearch search;
  if (const char* path = std::getenv("CUTLASS_PATH")) search.cutlass_path = path;
  // find_spec, not import: only the package's folder is wanted, and it is found without
  // running the package's own imports.
  search.python_package = [&runner, python = std::move(python)]() -> std::optional<fs::path> {
    ProcessResult result = runner.run(
        {.argv = {python, "-c",
                  "import importlib.util as u\n"
                  "s = u.find_spec('cutlass_library')\n"
                  "print(s.submodule_search_locations[0] if s and s.submodule_search_locations else '')"},
         .time_limit = std::chrono::seconds(60)});
    std::string folder = result.ok() ? result.out : "";
    while (!folder.empty() && (folder.back() == '\n' || folder.back() == '\r')) folder.pop_back();
    if (folder.empty()) return std::nullopt;
    return fs::path(folder);
  };
  return search;
}

}  // namespace kopt::build
