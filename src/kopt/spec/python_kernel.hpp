#pragma once
// A Triton kernel file (docs/triton.md): kernel.py with a Python `def solve(...)` of the same
// contract as a .cu solve. Its parameters' annotations say their C types, so the rest of kopt
// reads it as the C prototype they spell:
//   def solve(x: "const float*", y: "float*", n: int)  ->  extern "C" void solve(const float* x, float* y, int n);

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace kopt::spec {

// A kernel file kopt runs through the Triton worker: a .py file.
bool is_python_kernel(const std::filesystem::path& kernel);

// Whether `source` has a top-level `def solve(` or `def solution(`: a Triton kernel file, not a
// helper script beside one (how a folder without kopt.toml finds its kernel).
bool defines_python_solve(std::string_view source);

// For what kopt cannot do with a Triton kernel yet (docs/triton.md): throws input_error
// "<kernel>: <what> of a Triton kernel (.py) is not supported yet (docs/triton.md)" for a .py.
void refuse_python_kernel(const std::filesystem::path& kernel, std::string_view what);

// The C prototype of the top-level `def <entry>(...)` in `source` (entry: `solve`, else
// `solution`), placed on the def's own line so that messages name the right line. Throws
// input_error naming `file_name` when there is no such def, or a parameter has no annotation or
// one that is not a C type string ("const float*"), `int` or `float`.
std::string python_solve_prototype(std::string_view source, std::string_view file_name,
                                   const std::optional<std::string>& entry = std::nullopt);

}  // namespace kopt::spec
