#include "kopt/spec/python_kernel.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "kopt/core/error.hpp"
#include "kopt/spec/kernel_signature.hpp"
#include "kopt/spec/problem_spec.hpp"
#include "spec_test_support.hpp"

namespace kopt::spec {
namespace {

using ::testing::HasSubstr;

constexpr std::string_view kSoftmax = R"(import torch
import triton

@triton.jit
def softmax_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    pass

def solve(input: "const float*", output: "float*", rows: int,
          cols: "int", scale: float = 1.0) -> None:
    softmax_kernel[(rows,)](input, output, cols, BLOCK=1024)
)";

std::string python_error_of(std::string_view source) {
  try {
    python_solve_prototype(source, "kernel.py");
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ExitCode::bad_input);
    return error.what();
  }
  return "no error";
}

TEST(PythonKernel, IsAPyFile) {
  EXPECT_TRUE(is_python_kernel("examples/triton_softmax/kernel.py"));
  EXPECT_FALSE(is_python_kernel("kernel.cu"));
}

TEST(PythonKernel, AnnotationsSpellTheCPrototypeOnTheDefsLine) {
  const std::string prototype = python_solve_prototype(kSoftmax, "kernel.py");
  EXPECT_THAT(prototype, HasSubstr("extern \"C\" void solve(const float* input, float* output, int rows, int cols, "
                                   "float scale);"));
  const KernelSignature signature = parse_kernel_signature(prototype, "kernel.py");
  EXPECT_EQ(signature.line, 8);
  ASSERT_EQ(signature.params.size(), 5u);
  EXPECT_TRUE(signature.params[0].is_input_buffer());
  EXPECT_TRUE(signature.params[1].is_output_buffer());
  EXPECT_EQ(signature.params[1].dtype->name, "float32");
  EXPECT_TRUE(signature.params[3].is_scalar());
  EXPECT_EQ(signature.params[4].dtype->name, "float32");
}

TEST(PythonKernel, TakesSolutionWhenThereIsNoSolveAndANamedEntry) {
  EXPECT_THAT(python_solve_prototype("def solution(y: \"float*\", n: int):\n  pass\n", "kernel.py"),
              HasSubstr("void solution(float* y, int n)"));
  EXPECT_THAT(python_solve_prototype("def run(y: \"__nv_bfloat16*\"):\n  pass\n", "kernel.py", "run"),
              HasSubstr("void run(__nv_bfloat16* y)"));
}

TEST(PythonKernel, RefusesInOneLineWhatItCannotCall) {
  EXPECT_THAT(python_error_of("import triton\n"), HasSubstr("kernel.py: no top-level def solve(...)"));
  EXPECT_THAT(python_error_of("class K:\n    def solve(self, y: \"float*\"):\n        pass\n"),
              HasSubstr("no top-level def solve(...)"));
  EXPECT_THAT(python_error_of("def solve(x: \"const float*\", y, n: int):\n  pass\n"),
              HasSubstr("kernel.py:1: solve(): parameter y has no type annotation; write y: \"const float*\""));
  EXPECT_THAT(python_error_of("def solve(x: torch.Tensor):\n  pass\n"),
              HasSubstr("parameter x is annotated torch.Tensor, which says no C type"));
  EXPECT_THAT(python_error_of("def solve(*args):\n  pass\n"), HasSubstr("solve() takes *args"));
}

TEST(PythonKernel, WhatIsNotSupportedYetIsRefusedForPyOnly) {
  EXPECT_NO_THROW(refuse_python_kernel("kernel.cu", "SASS"));
  try {
    refuse_python_kernel("k/kernel.py", "SASS");
    ADD_FAILURE() << "no refusal";
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ExitCode::bad_input);
    EXPECT_STREQ(error.what(), "k/kernel.py: SASS of a Triton kernel (.py) is not supported yet (docs/triton.md)");
  }
}

TEST(PythonKernel, LoadsAsAProblemLikeACuKernel) {
  SpecFolder folder;
  folder.add("kopt.toml", "name = \"scale\"\nkernel = \"kernel.py\"\n[dims]\nN = 64\n")
      .add("kernel.py", "def solve(x: \"const float*\", y: \"float*\", N: int):\n  pass\n");
  Problem problem = load_problem(folder.path(), std::nullopt, {});
  EXPECT_EQ(problem.spec.kernel.filename(), "kernel.py");
  ASSERT_EQ(problem.signature.params.size(), 3u);
  Problem direct = load_problem(folder / "kernel.py", std::nullopt, {});
  EXPECT_EQ(direct.cases[0].args[1].buffer->elements, 64);
}

}  // namespace
}  // namespace kopt::spec
