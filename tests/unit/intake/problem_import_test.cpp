// kopt import of a LeetGPU challenge.py (tests/fixtures/import/leetgpu_saxpy, written for
// these tests in LeetGPU's format): the spec it writes, that it loads with an unmodified
// solution, and the one-line refusals.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "kopt/core/error.hpp"
#include "kopt/core/files.hpp"
#include "kopt/intake/problem_import.hpp"
#include "kopt/spec/problem_spec.hpp"
#include "../spec/spec_test_support.hpp"

namespace kopt::intake {
namespace {

namespace fs = std::filesystem;
using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::Not;

const fs::path kFixture = fs::path(KOPT_FIXTURES_DIR) / "import" / "leetgpu_saxpy";

using spec::error_of;  // spec_test_support.hpp: the one-line bad-input error a call throws

TEST(LeetGpuImport, WritesTheChallengeAsASpec) {
  ImportedProblem problem = import_problem(kFixture / "challenge.py", ProblemFormat::leetgpu);
  EXPECT_EQ(problem.name, "leetgpu_saxpy");
  EXPECT_THAT(problem.spec_toml, HasSubstr("[dims]  # the performance test\nrows = 4096\ncols = 2048\nalpha = 1.25\n"));
  // Every functional test as the suite's generator makes it, the loop's sizes included, with its own fills
  EXPECT_THAT(problem.spec_toml, HasSubstr("[[cases]]\nname = 'test 2: rows=3 cols=5 alpha=0.5 X=uniform(-1.0,1.0) "
                                           "Y=uniform(-1.0,1.0)'\nrows = 3\ncols = 5\nalpha = 0.5\n"));
  EXPECT_THAT(problem.spec_toml, HasSubstr("[[cases]]\nname = 'test 4: rows=16 cols=16 alpha=-1.5 X=zeros Y=ones'\nrows = 16\n"
                                           "cols = 16\nalpha = -1.5\ninit = { X = 'zeros', Y = 'ones' }\n"));
  EXPECT_THAT(problem.spec_toml,
              HasSubstr("[buffers.X]  # input\nshape = ['rows', 'cols']\ninit = 'uniform(-2.0,2.0)'\ndtype = 'float32'\n"));
  EXPECT_THAT(problem.spec_toml,
              HasSubstr("[buffers.Y]  # inout\nshape = ['rows', 'cols']\ninit = 'normal(0.0,1.0)'\ndtype = 'float32'\n"));
  EXPECT_THAT(problem.spec_toml, HasSubstr("[tolerance]\natol = 1e-05\nrtol = 1e-05\n"));
  EXPECT_THAT(problem.spec_toml, HasSubstr("bytes = '4*(rows)*(cols) + 8*(rows)*(cols)'"));
  EXPECT_THAT(problem.notes, Not(Contains(HasSubstr("left out"))));
  EXPECT_EQ(problem.reference_source, read_file(kFixture / "challenge.py"));
}

TEST(LeetGpuImport, TheWrittenFolderRunsAnUnmodifiedSolution) {
  TempDir folder("kopt-import-test");
  write_imported_problem(import_problem(kFixture / "challenge.py", ProblemFormat::leetgpu), folder.path());
  write_file_atomic(folder.path() / "solution.cu", read_file(kFixture / "solution.cu"));
  spec::Problem problem = spec::load_problem(folder.path(), std::nullopt, {});
  ASSERT_EQ(problem.cases.size(), 5u);  // the performance test and the four functional tests
  const spec::BoundBuffer& y = *problem.cases[0].args[1].buffer;
  EXPECT_EQ(y.elements, 4096 * 2048);
  EXPECT_TRUE(y.is_output);
  EXPECT_TRUE(y.init.has_value());  // in-out: the kernel reads what the test put there
  EXPECT_EQ(problem.spec.reference, folder.path() / "ref.py");
  EXPECT_EQ(problem.cases[2].args[0].buffer->elements, 15);
  EXPECT_EQ(problem.cases[4].args[0].buffer->elements, 256);
  EXPECT_EQ(problem.cases[4].args[0].buffer->init->text(), "zeros");  // the suite's edge case, kept
  EXPECT_EQ(problem.cases[4].args[1].buffer->init->text(), "ones");
  EXPECT_EQ(problem.cases[0].args[0].buffer->init->text(), "uniform(-2,2)");

  EXPECT_THAT(error_of([&] { write_imported_problem(import_problem(kFixture / "challenge.py", ProblemFormat::leetgpu),
                                                    folder.path()); }),
              HasSubstr("kopt.toml exists; import into another --out folder"));
}

TEST(LeetGpuImport, SaysInOneLineWhatItCannotTranslate) {
  TempDir folder("kopt-import-test");
  std::string challenge = read_file(kFixture / "challenge.py");
  const std::string built = "X = RandTensor((rows, cols), -2.0, 2.0)";
  challenge.replace(challenge.find(built), built.size(), "X = self.make_input(rows, cols)");
  write_file_atomic(folder.path() / "challenge.py", challenge);
  std::string error = error_of([&] { import_problem(folder.path() / "challenge.py", ProblemFormat::leetgpu); });
  EXPECT_THAT(error, HasSubstr("challenge.py:63: generate_performance_test: buffer X is not built by a constructor this "
                               "reader knows (nor do the generators run under kopt's stand-in torch); by hand: write "
                               "[buffers.X] shape and init in kopt.toml (docs/check.md)"));
  EXPECT_EQ(error.find('\n'), std::string::npos);
}

TEST(ProblemFormat, ComesFromTheFileNameOrTheOption) {
  EXPECT_EQ(problem_format_of("a/challenge.py", ""), ProblemFormat::leetgpu);
  EXPECT_EQ(problem_format_of("a/def.py", ""), ProblemFormat::tensara);
  EXPECT_EQ(problem_format_of("a/mine.py", "leetgpu"), ProblemFormat::leetgpu);
  EXPECT_THAT(error_of([] { problem_format_of("a/mine.py", ""); }),
              HasSubstr("not challenge.py (LeetGPU) or def.py (Tensara); say which with --format"));
  EXPECT_THAT(error_of([] { problem_format_of("a/mine.py", "kaggle"); }), HasSubstr("--format kaggle"));
  // A LeetGPU challenge read as Tensara's format has no class derived from Problem.
  EXPECT_THAT(error_of([] { import_problem(kFixture / "challenge.py", ProblemFormat::tensara); }),
              HasSubstr("no class derived from Problem"));
}

}  // namespace
}  // namespace kopt::intake
