// kopt import of a Tensara def.py (tests/fixtures/import/tensara_*, written for these tests in
// Tensara's format): the spec it writes, that it loads with an unmodified solution, and that
// the ref.py it writes calls the problem's reference_solution.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "kopt/core/error.hpp"
#include "kopt/core/files.hpp"
#include "kopt/core/process.hpp"
#include "kopt/intake/problem_import.hpp"
#include "kopt/spec/problem_spec.hpp"
#include "../spec/spec_test_support.hpp"

namespace kopt::intake {
namespace {

namespace fs = std::filesystem;
using ::testing::Contains;
using ::testing::HasSubstr;

const fs::path kImports = fs::path(KOPT_FIXTURES_DIR) / "import";
using spec::error_of;

TEST(TensaraImport, WritesTheProblemAsASpec) {
  ImportedProblem problem = import_problem(kImports / "tensara_leaky_relu" / "def.py", ProblemFormat::tensara);
  EXPECT_EQ(problem.name, "tensara_leaky_relu");
  EXPECT_THAT(problem.spec_toml, HasSubstr("[dims]  # the performance test\nalpha = 0.01\nn = 2048\nm = 1024\n"));
  EXPECT_THAT(problem.spec_toml, HasSubstr("[[cases]]\nname = '1000x3000, alpha=0.2'\nalpha = 0.2\nn = 1000\nm = 3000\n"));
  EXPECT_THAT(problem.spec_toml, HasSubstr("[buffers.input]  # input\nshape = ['n', 'm']\ninit = 'uniform(-3,3)'\ndtype = 'float32'\n"));
  EXPECT_THAT(problem.spec_toml, HasSubstr("[buffers.output]  # output\nshape = ['n', 'm']\ndtype = 'float32'\n"));
  EXPECT_THAT(problem.spec_toml, HasSubstr("[tolerance]\natol = 1e-06\nrtol = 0.0001\n"));
  EXPECT_THAT(problem.spec_toml, HasSubstr("bytes = '4*(n)*(m) + 4*(n)*(m)'\nflops = '(n * m)'\n"));
  EXPECT_THAT(problem.notes, Contains(HasSubstr("output's shape taken to be input's")));
  ASSERT_EQ(problem.extra_files.size(), 1u);
  EXPECT_EQ(problem.extra_files[0].first, "def.py");
  EXPECT_THAT(problem.reference_source, HasSubstr("CLASS = \"leaky_relu\"\nINPUTS = [\"input\", \"alpha\"]\n"));
}

TEST(TensaraImport, TheWrittenFolderRunsAnUnmodifiedSolution) {
  TempDir folder("kopt-import-test");
  write_imported_problem(import_problem(kImports / "tensara_leaky_relu" / "def.py", ProblemFormat::tensara),
                         folder.path());
  EXPECT_TRUE(fs::exists(folder.path() / "def.py"));
  write_file_atomic(folder.path() / "solution.cu", read_file(kImports / "tensara_leaky_relu" / "solution.cu"));
  spec::Problem problem = spec::load_problem(folder.path(), std::nullopt, {});
  ASSERT_EQ(problem.cases.size(), 4u);  // every test case: the first timed, all checked
  EXPECT_EQ(problem.cases[0].args[0].buffer->elements, 2048 * 1024);
  EXPECT_TRUE(problem.cases[0].args[2].buffer->is_output);
  EXPECT_EQ(problem.cases[3].args[2].buffer->elements, 1000 * 3000);
}

TEST(TensaraImport, MatmulShapesComeFromWhereEachSizeWasWritten) {
  ImportedProblem problem = import_problem(kImports / "tensara_matmul" / "def.py", ProblemFormat::tensara);
  EXPECT_THAT(problem.spec_toml, HasSubstr("[buffers.A]  # input\nshape = ['m', 'k']\ninit = 'normal(0,0.5)'\ndtype = 'float32'\n"));
  EXPECT_THAT(problem.spec_toml, HasSubstr("[buffers.C]  # output\nshape = ['m', 'n']\ndtype = 'float32'\n"));
  EXPECT_THAT(problem.spec_toml, HasSubstr("flops = '(((2 * m) * n) * k)'"));
}

// The written ref.py loads def.py beside it (with a stand-in for Tensara's `problem` module)
// and returns reference_solution of the inputs in the solution's order.
TEST(TensaraImport, TheWrittenReferenceCallsReferenceSolution) {
  TempDir folder("kopt-import-test");
  write_file_atomic(folder.path() / "def.py",
                    "from problem import Problem\n"
                    "class scale(Problem):\n"
                    "    def __init__(self):\n        super().__init__(name='scale')\n"
                    "    def reference_solution(self, x, factor):\n        return [v * factor for v in x]\n");
  write_file_atomic(folder.path() / "ref.py", tensara_reference_source("scale", {"x", "factor"}));
  SystemProcessRunner runner;
  ProcessResult result = runner.run(
      {.argv = {find_python().string(), "-c", "import ref; print(ref.reference(factor=3, x=[1, 2], out=None))"},
       .working_dir = folder.path()});
  ASSERT_TRUE(result.ok()) << result.err;
  EXPECT_EQ(result.out, "[3, 6]\n");
}

TEST(TensaraImport, SaysInOneLineWhatItCannotTranslate) {
  TempDir folder("kopt-import-test");
  std::string definition = read_file(kImports / "tensara_leaky_relu" / "def.py");
  definition.replace(definition.find("torch.rand((r, c)"), 17, "torch.linspace((r, c)");
  write_file_atomic(folder.path() / "def.py", definition);
  const std::string error = error_of([&] { import_problem(folder.path() / "def.py", ProblemFormat::tensara); });
  EXPECT_THAT(error, HasSubstr("def.py:46: an input built by torch.linspace"));
  EXPECT_THAT(error, HasSubstr("; by hand: write [buffers.NAME] init of that buffer, or a [[cases]] without that test in "
                               "kopt.toml (docs/check.md)"));
  EXPECT_EQ(error.find('\n'), std::string::npos);
}

}  // namespace
}  // namespace kopt::intake
