#pragma once
// Facts read from Python files without running them: the bundled helper
// (python/kopt_python_facts.py) parses them with Python's own ast module, so a ref.py, a
// Tensara def.py or a LeetGPU challenge.py is read, never imported or executed.

#include <filesystem>
#include <optional>
#include <string_view>

#include <nlohmann/json.hpp>

namespace kopt::spec {

// The helper's JSON, in the order it wrote it, for `what` ("tolerance", ...) on `file`. Throws input_error with the
// helper's one-line reason when the file says something it cannot take, an environment
// Error when there is no Python.
nlohmann::ordered_json read_python_facts(std::string_view what, const std::filesystem::path& file);

// A seed-style ref.py's module-level atol and rtol, each where it sets one.
struct ReferenceTolerance {
  std::optional<double> atol;
  std::optional<double> rtol;
};
ReferenceTolerance reference_tolerance(const std::filesystem::path& ref_py);

}  // namespace kopt::spec
