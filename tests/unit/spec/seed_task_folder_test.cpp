// Seed task folders: a kernel and a ref.py, no kopt.toml, sized as --M=... --N=... (the
// seed's benchmark: every buffer one flat size from the integer dims, outputs zeroed, the
// reference's own atol/rtol).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "kopt/spec/problem_spec.hpp"
#include "kopt/spec/python_facts.hpp"
#include "spec_test_support.hpp"

namespace kopt::spec {
namespace {

using ::testing::Contains;
using ::testing::HasSubstr;

constexpr std::string_view kAccumulatingReference =
    "atol = 1e-3\nrtol = 2e-2\n\ndef reference(A, B, C, M, N, K):\n    C[: M * N] += 1\n";

Dims gemm_dims(std::int64_t m, std::int64_t n, std::int64_t k) {
  return {{"M", m}, {"N", n}, {"K", k}};
}

TEST(SeedTaskFolder, RunsAFolderWithAKernelAndRefPySizedLikeTheSeedBenchmark) {
  SpecFolder folder;
  folder.add("gemm.cu", kSgemmKernel).add("ref.py", kAccumulatingReference);
  Problem problem = load_problem(folder.path(), std::nullopt, gemm_dims(64, 48, 32));
  EXPECT_EQ(problem.spec.kernel, folder / "gemm.cu");
  EXPECT_EQ(problem.spec.reference, folder / "ref.py");
  EXPECT_TRUE(problem.spec.seed_task);
  const BoundCase& only = problem.cases.at(0);
  for (std::size_t index : {0u, 1u, 2u}) EXPECT_EQ(buffer(only, index).elements, 64 * 48);  // the two largest
  EXPECT_TRUE(buffer(only, 2).starts_at_zero());  // the reference accumulates into C
  EXPECT_FALSE(buffer(only, 0).starts_at_zero());
  EXPECT_EQ(buffer(only, 2).tolerance.atol, 1e-3);
  EXPECT_EQ(buffer(only, 2).tolerance.rtol, 2e-2);
  EXPECT_THAT(problem.guesses, Contains("buffer A: 3072 elements (the product of the two largest of M, N, K, as "
                                        "the seed's benchmark sizes it; no kopt.toml)"));
  EXPECT_THAT(problem.guesses, Contains("tolerance: atol 0.001 rtol 0.02 (ref.py's own; no kopt.toml gives one)"));
}

TEST(SeedTaskFolder, AsksForEveryDimByItsSeedSpelling) {
  SpecFolder folder;
  folder.add("gemm.cu", kSgemmKernel).add("ref.py", kAccumulatingReference);
  EXPECT_THAT(error_of([&] { load_problem(folder.path(), std::nullopt, {{"M", std::int64_t{8}}}); }),
              HasSubstr("scalar N of solve has no value in case \"default\" (set N in [dims] of kopt.toml, or pass "
                        "--dim N=... or --N=...)"));
}

TEST(SeedTaskFolder, TakesTheSeedDefaultForTheToleranceRefPyLeavesOut) {
  SpecFolder folder;
  folder.add("relu.cu", "extern \"C\" void solve(const float* X, float* Y, int N) {}\n")
      .add("ref.py", "atol: float = 5e-2\ndef reference(X, Y, N):\n    Y[:] = X\n");
  Problem problem = load_problem(folder.path(), std::nullopt, {{"N", std::int64_t{100}}});
  EXPECT_EQ(buffer(problem.cases[0], 1).elements, 100);
  EXPECT_EQ(buffer(problem.cases[0], 1).tolerance.atol, 5e-2);
  EXPECT_EQ(buffer(problem.cases[0], 1).tolerance.rtol, 1e-3);
}

TEST(SeedTaskFolder, KeepsTheDtypeDefaultsWhenRefPySetsNoTolerance) {
  SpecFolder folder;
  folder.add("relu.cu", "extern \"C\" void solve(const float* X, float* Y, int N) {}\n")
      .add("ref.py", "def reference(X, Y, N):\n    Y[:] = X\n");
  Problem problem = load_problem(folder.path(), std::nullopt, {{"N", std::int64_t{100}}});
  EXPECT_FALSE(problem.spec.tolerance.has_value());
  EXPECT_THAT(problem.guesses, ::testing::Not(Contains(HasSubstr("tolerance"))));
}

TEST(SeedTaskFolder, SizesWithoutIntegerDimsAndCapsTheSize) {
  SpecFolder folder;
  folder.add("scale.cu", "extern \"C\" void solve(const float* X, float* Y) {}\n").add("ref.py", "");
  Problem fixed = load_problem(folder.path(), std::nullopt, {});
  EXPECT_EQ(buffer(fixed.cases[0], 0).elements, std::int64_t{1} << 20);

  SpecFolder huge;
  huge.add("gemm.cu", kSgemmKernel).add("ref.py", "");
  Problem capped = load_problem(huge.path(), std::nullopt, gemm_dims(65536, 65536, 8));
  EXPECT_EQ(buffer(capped.cases[0], 0).elements, std::int64_t{1} << 28);
  // Said before a ref.py sized from the dims fails on it (issue 60); not said below the cap.
  EXPECT_THAT(capped.guesses, Contains(HasSubstr("capped at 2^28, the seed's limit")));
  EXPECT_THAT(fixed.guesses, ::testing::Not(Contains(HasSubstr("capped"))));
}

TEST(SeedTaskFolder, RefusesWhatItCannotTake) {
  SpecFolder two;
  two.add("a.cu", kSgemmKernel).add("b.cu", kSgemmKernel).add("ref.py", "");
  EXPECT_THAT(error_of([&] { locate_problem(two.path()); }),
              HasSubstr("no kopt.toml and several kernels (a.cu, b.cu); name one of them"));

  SpecFolder computed;
  computed.add("gemm.cu", kSgemmKernel).add("ref.py", "import math\natol = math.sqrt(1e-6)\n");
  EXPECT_THAT(error_of([&] { locate_problem(computed.path()); }),
              HasSubstr("ref.py:2: atol is math.sqrt(1e-06), not a number literal"));

  SpecFolder negative;
  negative.add("gemm.cu", kSgemmKernel).add("ref.py", "rtol = -1\n");
  EXPECT_THAT(error_of([&] { locate_problem(negative.path()); }), HasSubstr("ref.py: rtol = -1 must be >= 0"));
}

TEST(PythonFacts, ReadsWithoutRunningTheFile) {
  SpecFolder folder;
  // Executed, this would fail at the import; read with ast, only the assignments count.
  folder.add("ref.py", "import no_such_module_anywhere\natol = 1e-5\nrtol = 0\natol = 2e-5\n");
  ReferenceTolerance tolerance = reference_tolerance(folder / "ref.py");
  EXPECT_EQ(tolerance.atol, 2e-5);  // the last assignment wins, as when Python runs it
  EXPECT_EQ(tolerance.rtol, 0.0);
  folder.add("broken.py", "def reference(:\n");
  EXPECT_THAT(error_of([&] { reference_tolerance(folder / "broken.py"); }), HasSubstr("broken.py:1: not valid Python"));
}

}  // namespace
}  // namespace kopt::spec
