#include "kopt/build/compiler.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "kopt/core/error.hpp"
#include "kopt/core/files.hpp"

namespace kopt::build {
namespace {

using ::testing::HasSubstr;
namespace fs = std::filesystem;

// Records commands and answers like nvcc would, without running anything.
class FakeNvcc final : public ProcessRunner {
 public:
  ProcessResult run(const ProcessSpec& spec) override {
    commands.push_back(spec.argv);
    ProcessResult result{.started = true, .exit_status = 0};
    if (spec.argv.size() == 2 && spec.argv[1] == "--version") {
      result.out = "Cuda compilation tools, release 13.0, V13.0.88\nBuild cuda_13.0.r13.0/compiler.1\n";
      return result;
    }
    auto out = std::find(spec.argv.begin(), spec.argv.end(), "-o");
    const std::string& source = spec.argv[static_cast<std::size_t>(out - spec.argv.begin()) + 2];
    if (source.ends_with(".cu") && read_file(source).find("syntax error") != std::string::npos) {
      result.exit_status = 2;
      result.err = source + "(1): error: expected a \";\"\n1 error detected in the compilation of \"k.cu\".\n";
      return result;
    }
    write_file_atomic(*(out + 1), "ELF");
    result.err = "ptxas info    : Compiling entry function 'k' for 'sm_90'\n"
                 "ptxas info    : Used 8 registers, used 0 barriers\n";
    return result;
  }
  std::vector<std::vector<std::string>> commands;

  int compiles() const {
    return static_cast<int>(std::count_if(commands.begin(), commands.end(), [](const auto& argv) {
      return std::find(argv.begin(), argv.end(), "-shared") != argv.end();
    }));
  }
};

class CompilerTest : public ::testing::Test {
 protected:
  TempDir dir{"compiler-test"};
  FakeNvcc nvcc;
  Compiler compiler{nvcc, "nvcc", dir.path() / "cache"};

  fs::path write(const std::string& name, const std::string& text) {
    write_file_atomic(dir.path() / name, text);
    return dir.path() / name;
  }
};

TEST(ArchFlags, SelectsRealCodeForTheTarget) {
  EXPECT_EQ(arch_flags("sm_90"), std::vector<std::string>{"-gencode=arch=compute_90,code=sm_90"});
  EXPECT_EQ(arch_flags("sm_90a"), std::vector<std::string>{"-gencode=arch=compute_90a,code=sm_90a"});
  EXPECT_EQ(arch_flags("sm_100a"), std::vector<std::string>{"-gencode=arch=compute_100a,code=sm_100a"});
  EXPECT_THROW(arch_flags("hopper"), Error);
}

TEST_F(CompilerTest, AnUnchangedVariantIsNeverCompiledTwice) {
  fs::path source = write("k.cu", "extern \"C\" void solve() {}\n");
  BuildOutcome first = compiler.compile({.source = source, .arch = "sm_90"});
  ASSERT_TRUE(first.ok());
  EXPECT_FALSE(first.artifact->cache_hit);
  EXPECT_EQ(first.artifact->resources.functions.at(0).registers, 8);
  BuildOutcome second = compiler.compile({.source = source, .arch = "sm_90"});
  ASSERT_TRUE(second.ok());
  EXPECT_TRUE(second.artifact->cache_hit);
  EXPECT_EQ(second.artifact->library, first.artifact->library);
  EXPECT_EQ(second.artifact->resources.functions.at(0).registers, 8);
  EXPECT_EQ(nvcc.compiles(), 1);
}

TEST_F(CompilerTest, TheKeyCoversSourceHeadersFlagsDefinesAndArch) {
  fs::path source = write("k.cu", "#include \"tile.h\"\nextern \"C\" void solve() {}\n");
  write("tile.h", "#define T 1\n");
  CompileRequest base{.source = source, .arch = "sm_90"};
  const std::string key = compiler.cache_key(base);
  EXPECT_EQ(key, compiler.cache_key(base));

  CompileRequest other_arch = base;
  other_arch.arch = "sm_90a";
  CompileRequest other_flags = base;
  other_flags.flags = {"-use_fast_math"};
  CompileRequest other_defines = base;
  other_defines.defines = {{"BM", "128"}};
  EXPECT_NE(compiler.cache_key(other_arch), key);
  EXPECT_NE(compiler.cache_key(other_flags), key);
  EXPECT_NE(compiler.cache_key(other_defines), key);

  write("tile.h", "#define T 2\n");
  EXPECT_NE(compiler.cache_key(base), key) << "an edited local header must change the key";
}

TEST_F(CompilerTest, LocalIncludesAreFoundRecursivelyAndThroughIncludeDirs) {
  fs::path source = write("k.cu", "#include \"a.h\"\n#include <cuda_runtime.h>\n#include \"inc.h\"\n");
  write("a.h", "#include \"b.h\"\n");
  write("b.h", "// leaf\n");
  fs::create_directories(dir.path() / "include");
  write("include/inc.h", "// from -I\n");
  std::vector<fs::path> found = local_includes(source, {"-I" + (dir.path() / "include").string()});
  std::vector<std::string> names;
  for (const fs::path& p : found) names.push_back(p.filename().string());
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"a.h", "b.h", "inc.h"}));
}

TEST_F(CompilerTest, ACompileErrorIsAFailureWithNvccsOutput) {
  fs::path source = write("bad.cu", "syntax error\n");
  BuildOutcome outcome = compiler.compile({.source = source, .arch = "sm_90"});
  ASSERT_FALSE(outcome.ok());
  EXPECT_THAT(outcome.failure->first_error, HasSubstr("error: expected a \";\""));
  EXPECT_THAT(outcome.failure->log, HasSubstr("1 error detected"));
  EXPECT_THAT(outcome.failure->command, HasSubstr("nvcc"));
}

TEST_F(CompilerTest, UserFlagsComeAfterTheDefaultsAndDefinesAreApplied) {
  fs::path source = write("k.cu", "extern \"C\" void solve() {}\n");
  ASSERT_TRUE(compiler.compile({.source = source, .arch = "sm_90", .flags = {"-O0"}, .defines = {{"BM", "64"}}}).ok());
  const auto& argv = nvcc.commands.back();
  auto o3 = std::find(argv.begin(), argv.end(), "-O3");
  auto o0 = std::find(argv.begin(), argv.end(), "-O0");
  ASSERT_NE(o0, argv.end());
  EXPECT_LT(o3, o0);
  EXPECT_NE(std::find(argv.begin(), argv.end(), "-DBM=64"), argv.end());
  EXPECT_NE(std::find(argv.begin(), argv.end(), "-lineinfo"), argv.end());
}

// The real compiler, where CI has it: the kernel compiles for sm_90 and its report is kept.
TEST(CompilerWithNvcc, CompilesARealKernelForSm90) {
  fs::path nvcc_path;
  try {
    nvcc_path = find_nvcc();
  } catch (const Error&) {
    GTEST_SKIP() << "nvcc is not installed";
  }
  TempDir dir("nvcc-test");
  write_file_atomic(dir.path() / "k.cu",
                    "__global__ void scale(float* x, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x;"
                    " if (i < n) x[i] *= 2; }\n"
                    "extern \"C\" void solve(float* x, int n) { scale<<<(n + 255) / 256, 256>>>(x, n); }\n");
  SystemProcessRunner runner;
  Compiler compiler(runner, nvcc_path, dir.path() / "cache");
  BuildOutcome outcome = compiler.compile({.source = dir.path() / "k.cu", .arch = "sm_90"});
  ASSERT_TRUE(outcome.ok()) << outcome.failure->log;
  EXPECT_TRUE(fs::exists(outcome.artifact->library));
  ASSERT_EQ(outcome.artifact->resources.functions.size(), 1u);
  EXPECT_EQ(outcome.artifact->resources.functions[0].name, "_Z5scalePfi");
  EXPECT_GT(outcome.artifact->resources.functions[0].registers, 0);
  EXPECT_TRUE(compiler.compile({.source = dir.path() / "k.cu", .arch = "sm_90"}).artifact->cache_hit);
}

// Every check asks its compiler for nvcc's version: one process per nvcc binary and process,
// asked again when the binary is replaced.
TEST(NvccVersion, IsAskedOncePerBinaryAndAgainWhenItIsReplaced) {
  TempDir dir{"nvcc-version"};
  const fs::path nvcc = dir.path() / "nvcc";  // absolute, and a file: remembered
  write_file_atomic(nvcc, "not run: the fake runner answers");
  FakeNvcc runner;
  auto versions_asked = [&] {
    return std::count_if(runner.commands.begin(), runner.commands.end(),
                         [](const auto& argv) { return argv.size() == 2 && argv[1] == "--version"; });
  };
  EXPECT_THAT(Compiler(runner, nvcc, dir.path() / "cache").nvcc_version(), HasSubstr("release 13.0"));
  EXPECT_THAT(Compiler(runner, nvcc, dir.path() / "cache").nvcc_version(), HasSubstr("release 13.0"));
  EXPECT_EQ(versions_asked(), 1);
  write_file_atomic(nvcc, "another nvcc, of another size");
  Compiler(runner, nvcc, dir.path() / "cache").nvcc_version();
  EXPECT_EQ(versions_asked(), 2);
  Compiler(runner, "nvcc", dir.path() / "cache").nvcc_version();  // a bare name: asked each time
  Compiler(runner, "nvcc", dir.path() / "cache").nvcc_version();
  EXPECT_EQ(versions_asked(), 4);
}

TEST(NvccVersion, AnotherProcessFindsItInTheCacheFolder) {
  TempDir dir{"nvcc-version-cached"};
  const fs::path nvcc = dir.path() / "nvcc";
  write_file_atomic(nvcc, "not run: the fake runner answers");
  FakeNvcc runner;
  auto versions_asked = [&] {
    return std::count_if(runner.commands.begin(), runner.commands.end(),
                         [](const auto& argv) { return argv.size() == 2 && argv[1] == "--version"; });
  };
  const std::string version = Compiler(runner, nvcc, dir.path() / "cache").nvcc_version();
  forget_remembered_nvcc_versions();  // as a new kopt process starts
  EXPECT_EQ(Compiler(runner, nvcc, dir.path() / "cache").nvcc_version(), version);
  EXPECT_EQ(versions_asked(), 1);
  forget_remembered_nvcc_versions();
  Compiler(runner, nvcc, dir.path() / "another cache").nvcc_version();  // its folder has no record
  EXPECT_EQ(versions_asked(), 2);
}

TEST(NvccVersion, ACacheFolderThatTakesNoWritesStillGivesTheVersion) {
  TempDir dir{"nvcc-version-unwritable"};
  const fs::path nvcc = dir.path() / "nvcc";
  write_file_atomic(nvcc, "not run: the fake runner answers");
  write_file_atomic(dir.path() / "cache", "a file where the cache folder would be");
  FakeNvcc runner;
  forget_remembered_nvcc_versions();
  EXPECT_THAT(Compiler(runner, nvcc, dir.path() / "cache").nvcc_version(), HasSubstr("release 13.0"));
}

}  // namespace
}  // namespace kopt::build
