#include "kopt/core/context.hpp"

#include <cstdlib>
#include <stdexcept>

#include "kopt/core/error.hpp"

namespace kopt {
namespace fs = std::filesystem;

namespace {

// How each tool is named, overridden and obtained: the words of its "not found" message.
struct ToolLookup {
  std::string_view name;
  const char* env_var;
  std::string_view how_to_get_it;
};

ToolLookup lookup_of(Tool tool) {
  switch (tool) {
    case Tool::nvcc:
      return {"nvcc", "KOPT_NVCC", "install the CUDA toolkit or set KOPT_NVCC"};
    case Tool::cuobjdump:
      return {"cuobjdump", "KOPT_CUOBJDUMP",
              "install the CUDA toolkit's, or run kopt's ./setup (it installs NVIDIA's cuobjdump and nvdisasm "
              "wheels where kopt looks)"};
    case Tool::nvdisasm:
      return {"nvdisasm", "KOPT_NVDISASM",
              "install the CUDA toolkit's, or run kopt's ./setup (it installs NVIDIA's cuobjdump and nvdisasm "
              "wheels where kopt looks)"};
    case Tool::ncu:
      return {"ncu", "KOPT_NCU", "install Nsight Compute (it ships with the CUDA toolkit) or set KOPT_NCU to its ncu"};
    case Tool::python:
      return {"python3", "KOPT_PYTHON", "a .py reference needs Python 3 with numpy (or torch)"};
  }
  throw std::logic_error("unknown tool");
}

fs::path find_python3(const ToolLookup& lookup) {
  if (const char* python = std::getenv(lookup.env_var); python && *python) {
    if (auto found = find_program(python)) return *found;
    throw environment_error("{}={} is not an executable", lookup.env_var, python);
  }
  if (auto found = find_program(lookup.name)) return *found;
  throw environment_error("python3 not found: {}", lookup.how_to_get_it);
}

}  // namespace

std::string_view tool_name(Tool tool) { return lookup_of(tool).name; }

fs::path SystemToolchain::path(Tool tool) {
  if (auto known = found_.find(tool); known != found_.end()) return known->second;
  const ToolLookup lookup = lookup_of(tool);
  fs::path found = tool == Tool::python ? find_python3(lookup)
                                        : find_cuda_tool(lookup.name, lookup.env_var, lookup.how_to_get_it);
  found_.emplace(tool, found);
  return found;
}

fs::path FixedToolchain::path(Tool tool) {
  if (auto known = paths_.find(tool); known != paths_.end()) return known->second;
  throw environment_error("{} not found (a fixed toolchain without it)", tool_name(tool));
}

fs::path find_python() { return SystemToolchain().path(Tool::python); }

}  // namespace kopt
