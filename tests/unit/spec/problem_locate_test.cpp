#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "kopt/spec/problem_spec.hpp"
#include "spec_test_support.hpp"

namespace kopt::spec {
namespace {

using ::testing::HasSubstr;

TEST(SpecLessProblem, GuessesSizeNameAndReferenceAndSaysSo) {
  SpecFolder folder;
  folder.add("vector_add.cu",
             "extern \"C\" void solve(const float* A, const float* B, float* C, int N) {}\n");
  Problem problem = load_problem(folder / "vector_add.cu", std::nullopt, {});
  EXPECT_EQ(problem.spec.name, "vector_add");
  EXPECT_FALSE(problem.spec.spec_file.has_value());
  EXPECT_FALSE(problem.spec.reference.has_value());
  ASSERT_EQ(problem.cases.size(), 1u);
  EXPECT_EQ(problem.cases[0].name, "default");
  EXPECT_EQ(buffer(problem.cases[0], 2).elements, 16777216);
  EXPECT_EQ(scalar(problem.cases[0], 3).value, Number{std::int64_t{16777216}});
  EXPECT_THAT(problem.guesses, ::testing::Contains(HasSubstr(
                                   "N = 16777216 (2^24; no kopt.toml gives it; override with --dim N=...)")));
  EXPECT_THAT(
      problem.guesses,
      ::testing::Contains("buffer C: 16777216 elements (the value of N; no [buffers.C] in kopt.toml)"));
  EXPECT_THAT(problem.guesses,
              ::testing::Contains(
                  HasSubstr("checks will cover determinism, unwritten outputs and input integrity only")));
}

TEST(SpecLessProblem, UsesAReferenceBesideTheKernelAndDimOverrides) {
  SpecFolder folder;
  folder.add("relu.cu", "extern \"C\" void solve(const float* X, float* Y, size_t N) {}\n").add("ref.py", "");
  Problem problem = load_problem(folder / "relu.cu", std::nullopt, {{"N", std::int64_t{1000}}});
  EXPECT_EQ(problem.spec.reference, folder / "ref.py");
  EXPECT_THAT(problem.guesses, ::testing::Contains("reference: ref.py (found beside the kernel)"));
  EXPECT_EQ(buffer(problem.cases[0], 1).elements, 1000);
  EXPECT_THAT(problem.guesses, ::testing::Not(::testing::Contains(HasSubstr("2^24"))));
}

TEST(SpecLessProblem, RefusesWhatItCannotGuess) {
  SpecFolder folder;
  folder.add("gemm.cu", kSgemmKernel)
      .add("saxpy.cu", "extern \"C\" void solve(float* Y, float alpha, int N) {}\n");
  EXPECT_THAT(error_of([&] { load_problem(folder / "gemm.cu", std::nullopt, {}); }),
              HasSubstr("scalar M of solve has no value in case \"default\" (set M in [dims] of kopt.toml, or pass "
                        "--dim M=... or --M=...)"));
  EXPECT_THAT(error_of([&] { load_problem(folder / "saxpy.cu", std::nullopt, {}); }),
              HasSubstr("scalar alpha of solve has no value in case \"default\" (set alpha in [dims] of "
                        "kopt.toml, or pass --dim alpha=... or --alpha=...)"));
}

TEST(ProblemSpecLocate, FindsTheSpecFromAFolderATomlOrAKernelBesideIt) {
  SpecFolder folder;
  folder.add("kopt.toml", "name = \"vadd\"\nkernel = \"base.cu\"\n[dims]\nN = 64\n")
      .add("base.cu", "extern \"C\" void solve(const float* A, float* C, int N) {}\n")
      .add("variant.cu", "extern \"C\" void solve(const float* A, float* C, int N) {}\n");
  EXPECT_EQ(locate_problem(folder.path()).kernel, folder / "base.cu");
  EXPECT_EQ(locate_problem(folder / "kopt.toml").kernel, folder / "base.cu");
  ProblemSpec variant = locate_problem(folder / "variant.cu");
  EXPECT_EQ(variant.name, "vadd");
  EXPECT_EQ(variant.kernel, folder / "variant.cu");
  EXPECT_EQ(variant.spec_file, folder / "kopt.toml");

  SpecFolder elsewhere;
  elsewhere.add("try.cu", "extern \"C\" void solve(const float* A, float* C, int N) {}\n");
  ProblemSpec overridden = locate_problem(elsewhere / "try.cu", folder / "kopt.toml");
  EXPECT_EQ(overridden.kernel, elsewhere / "try.cu");
  EXPECT_EQ(overridden.name, "vadd");
  Problem loaded = load_problem(elsewhere / "try.cu", folder / "kopt.toml", {});
  EXPECT_EQ(buffer(loaded.cases[0], 1).elements, 64);
}

TEST(ProblemSpecLocate, ExplainsWhatItCannotUse) {
  SpecFolder folder;
  folder.add("notes.txt", "");
  EXPECT_THAT(error_of([&] { locate_problem(folder.path()); }),
              HasSubstr("no kopt.toml and no kernel (a .cu, or a .py that defines solve) in this folder; name a "
                        "kernel file or give --spec"));
  EXPECT_THAT(error_of([&] { locate_problem(folder / "missing.cu"); }),
              HasSubstr("missing.cu: no such file or folder"));
  EXPECT_THAT(error_of([&] { locate_problem(folder / "notes.txt"); }),
              HasSubstr("expected a .cu kernel, a Triton .py kernel, a kopt.toml or a folder"));
}

// A Triton kernel.py alone in a folder is found as a .cu kernel is; a helper script beside it
// (no def solve) and ref.py are not kernels.
TEST(ProblemSpecLocate, FindsTheOneTritonKernelOfAFolder) {
  SpecFolder folder;
  folder.add("kernel.py", "import triton\n\ndef solve(x: \"const float*\", y: \"float*\", n: int):\n    pass\n")
      .add("plot.py", "import matplotlib\n\ndef main():\n    pass\n")
      .add("ref.py", "def solve(x, y, n):\n    pass\n");
  EXPECT_EQ(locate_problem(folder.path()).kernel, folder / "kernel.py");
  folder.add("other.py", "def solution(x: \"const float*\", n: int):\n    pass\n");
  EXPECT_THAT(error_of([&] { locate_problem(folder.path()); }),
              HasSubstr("no kopt.toml and several kernels (kernel.py, other.py); name one of them"));
}

TEST(ProblemSpecLoad, NamesTheKernelFileInSignatureErrors) {
  SpecFolder folder;
  folder.add("bad.cu", "extern \"C\" void solve(float** X, int N) {}\n");
  EXPECT_THAT(error_of([&] { load_problem(folder / "bad.cu", std::nullopt, {}); }),
              HasSubstr("bad.cu:1: cannot parse parameter 1 of solve (\"float** X\")"));
}

}  // namespace
}  // namespace kopt::spec
