#pragma once
// Shared by the kopt.toml tests: literal specs and kernels, a temporary folder, and
// helpers that return an error's message.

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <string_view>

#include "kopt/core/error.hpp"
#include "kopt/core/files.hpp"
#include "kopt/spec/problem_spec.hpp"

namespace kopt::spec {

inline constexpr std::string_view kSgemmKernel =
    "extern \"C\" void solve(const float* A, const float* B, float* C, int M, int N, int K) {}\n";

inline constexpr std::string_view kSgemmSpec = R"toml(name = "sgemm"
kernel = "sgemm_naive.cu"
reference = "ref.py"
entry = "solve"
[dims]
M = 4096
N = 2048
K = 512
[[cases]]
M = 1024
N = 1024
K = 128
[[cases]]
name = "skinny"
M = 8
[buffers.A]
shape = "M*K"
init = "uniform(-1,1)"
[buffers.B]
shape = ["K", "N"]
[buffers.C]
shape = "M*N"
tolerance = { atol = 1e-3, rtol = 1e-2 }
[tolerance]
atol = 1e-4
rtol = 1e-3
[work]
flops = "2*M*N*K"
bytes = "4*(M*K + K*N + M*N)"
[build]
flags = ["-use_fast_math"]
arch = "sm_90a"
[tune]
BM = [32, 64, 128]
BN = [64, 32]
VARIANT = ["a", "b"]
restrict = ["BM*BN <= 16384"]
)toml";

// A folder holding the given files; removed at the end of the test.
class SpecFolder {
 public:
  SpecFolder& add(const std::string& name, std::string_view content) {
    write_file_atomic(dir_.path() / name, content);
    return *this;
  }
  const std::filesystem::path& path() const { return dir_.path(); }
  std::filesystem::path operator/(const std::string& name) const { return dir_.path() / name; }

 private:
  TempDir dir_{"kopt-spec-test"};
};

template <typename Call>
std::string error_of(Call call) {
  try {
    call();
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ExitCode::bad_input);
    return error.what();
  }
  return "no error";
}

inline std::string spec_error(std::string_view toml) {
  return error_of([&] { parse_problem_spec(toml, "/nowhere/problem", "kopt.toml"); });
}

inline ProblemSpec parse_text(std::string_view toml) {
  return parse_problem_spec(toml, "/nowhere/problem", "kopt.toml");
}

inline KernelSignature signature_of(std::string_view source) {
  return parse_kernel_signature(source, "kernel.cu");
}

inline std::string bind_error(std::string_view toml, std::string_view source, const Dims& overrides = {}) {
  return error_of([&] { bind_problem(parse_text(toml), signature_of(source), overrides); });
}

inline const BoundBuffer& buffer(const BoundCase& bound, std::size_t index) {
  return *bound.args.at(index).buffer;
}
inline const BoundScalar& scalar(const BoundCase& bound, std::size_t index) {
  return *bound.args.at(index).scalar;
}

}  // namespace kopt::spec
