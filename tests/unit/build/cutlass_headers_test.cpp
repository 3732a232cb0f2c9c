#include "kopt/build/cutlass_headers.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "kopt/build/compiler.hpp"
#include "kopt/core/error.hpp"
#include "kopt/core/files.hpp"

namespace kopt::build {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
namespace fs = std::filesystem;

// Fake CUTLASS trees: a checkout (include/, tools/util/include/), the Python package's layout
// (source/include/), an empty folder.
class CutlassHeadersTest : public ::testing::Test {
 protected:
  TempDir dir{"cutlass-test"};

  fs::path tree(const std::string& name, const std::string& include) {
    write_file_atomic(dir.path() / name / include / "cutlass" / "cutlass.h", "#pragma once\n");
    write_file_atomic(dir.path() / name / include / "cutlass" / "version.h", "#define CUTLASS_MAJOR 4\n");
    return fs::weakly_canonical(dir.path() / name);
  }
  fs::path kernel(const std::string& text) {
    write_file_atomic(dir.path() / "k.cu", text);
    return dir.path() / "k.cu";
  }
};

TEST_F(CutlassHeadersTest, FindsTheIncludeFolderOfACheckoutAPackageAndAPlainFolder) {
  const fs::path checkout = tree("checkout", "include");
  fs::create_directories(checkout / "tools" / "util" / "include");
  EXPECT_THAT(cutlass_include_dirs(checkout),
              ElementsAre(checkout / "include", checkout / "tools" / "util" / "include"));
  const fs::path package = tree("cutlass_library", "source/include");
  EXPECT_THAT(cutlass_include_dirs(package), ElementsAre(package / "source" / "include"));
  const fs::path plain = tree("plain", ".");
  EXPECT_THAT(cutlass_include_dirs(plain), ElementsAre(plain));
  fs::create_directories(dir.path() / "empty");
  EXPECT_TRUE(cutlass_include_dirs(dir.path() / "empty").empty());
  EXPECT_TRUE(cutlass_include_dirs(dir.path() / "absent").empty());
}

TEST_F(CutlassHeadersTest, TellsCutlassAndCuteIncludesFromOthers) {
  EXPECT_TRUE(includes_cutlass(kernel("#include \"cutlass/cutlass.h\"\n"), {}));
  EXPECT_TRUE(includes_cutlass(kernel("  #  include <cute/tensor.hpp>\n"), {}));
  EXPECT_FALSE(includes_cutlass(kernel("#include <cuda_runtime.h>\n// #include \"cutlass/x.h\" in a comment\n"), {}));
  write_file_atomic(dir.path() / "gemm.cuh", "#include \"cute/tensor.hpp\"\n");
  EXPECT_TRUE(includes_cutlass(kernel("#include \"gemm.cuh\"\n"), {dir.path() / "gemm.cuh"}));
}

TEST_F(CutlassHeadersTest, CutlassPathComesBeforeThePythonPackage) {
  const fs::path checkout = tree("checkout", "include");
  const fs::path package = tree("cutlass_library", "source/include");
  CutlassSearch search{.cutlass_path = checkout.string(), .python_package = [&] { return package; }};
  EXPECT_THAT(cutlass_include_flags(search, "k.cu"), ElementsAre("-I" + (checkout / "include").string()));
  search.cutlass_path.reset();
  EXPECT_THAT(cutlass_include_flags(search, "k.cu"),
              ElementsAre("-I" + (package / "source" / "include").string()));
}

TEST_F(CutlassHeadersTest, NoCutlassAnywhereIsOneLineSayingWhereToGetIt) {
  CutlassSearch none{.python_package = [] { return std::optional<fs::path>(); }};
  try {
    cutlass_include_flags(none, "k.cu");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::environment);
    EXPECT_THAT(e.what(), HasSubstr("k.cu includes CUTLASS/CuTe headers and none were found"));
    EXPECT_THAT(e.what(), HasSubstr("pip install nvidia-cutlass"));
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos);
  }
  CutlassSearch wrong{.cutlass_path = (dir.path() / "nowhere").string()};
  EXPECT_THROW(
      {
        try {
          cutlass_include_flags(wrong, "k.cu");
        } catch (const Error& e) {
          EXPECT_THAT(e.what(), HasSubstr("CUTLASS_PATH=" + (dir.path() / "nowhere").string()));
          throw;
        }
      },
      Error);
}

TEST_F(CutlassHeadersTest, FlagsThatAlreadyReachCutlassNeedNoSearch) {
  const fs::path checkout = tree("checkout", "include");
  EXPECT_TRUE(flags_reach_cutlass({"-O3", "-I" + (checkout / "include").string()}));
  EXPECT_TRUE(flags_reach_cutlass({"-I", (checkout / "include").string()}));
  EXPECT_FALSE(flags_reach_cutlass({"-I" + checkout.string(), "-O3"}));
}

// nvcc stand-in: records the command, writes the library.
class RecordingNvcc final : public ProcessRunner {
 public:
  ProcessResult run(const ProcessSpec& spec) override {
    commands.push_back(spec.argv);
    ProcessResult result{.started = true, .exit_status = 0};
    if (spec.argv.size() == 2) {
      result.out = "Cuda compilation tools, release 13.0, V13.0.88\n";
      return result;
    }
    auto out = std::find(spec.argv.begin(), spec.argv.end(), "-o");
    write_file_atomic(*(out + 1), "ELF");
    return result;
  }
  std::vector<std::vector<std::string>> commands;
};

TEST_F(CutlassHeadersTest, TheCompilerAddsTheFoundHeadersOnlyToKernelsThatIncludeThem) {
  const fs::path package = tree("cutlass_library", "source/include");
  int searches = 0;
  RecordingNvcc nvcc;
  Compiler compiler(nvcc, "nvcc", dir.path() / "cache",
                    CutlassSearch{.python_package = [&] { ++searches; return package; }});
  const std::string flag = "-I" + (package / "source" / "include").string();
  ASSERT_TRUE(compiler.compile({.source = kernel("#include \"cutlass/cutlass.h\"\n"), .arch = "sm_90a"}).ok());
  EXPECT_THAT(nvcc.commands.back(), ::testing::Contains(flag));
  write_file_atomic(dir.path() / "plain.cu", "__global__ void k() {}\n");
  ASSERT_TRUE(compiler.compile({.source = dir.path() / "plain.cu", .arch = "sm_90a"}).ok());
  EXPECT_THAT(nvcc.commands.back(), ::testing::Not(::testing::Contains(flag)));
  EXPECT_EQ(searches, 1);
}

TEST_F(CutlassHeadersTest, ANewCutlassReleaseIsANewCacheKey) {
  const fs::path checkout = tree("checkout", "include");
  RecordingNvcc nvcc;
  Compiler compiler(nvcc, "nvcc", dir.path() / "cache", CutlassSearch{});
  const CompileRequest request{.source = kernel("#include \"cutlass/cutlass.h\"\n"),
                               .arch = "sm_90a",
                               .flags = {"-I" + (checkout / "include").string()}};
  const std::string before = compiler.cache_key(request);
  write_file_atomic(checkout / "include" / "cutlass" / "version.h", "#define CUTLASS_MAJOR 5\n");
  EXPECT_NE(compiler.cache_key(request), before);
}

TEST_F(CutlassHeadersTest, AKernelThatIncludesCutlassWithoutOneFoundIsRefused) {
  RecordingNvcc nvcc;
  Compiler compiler(nvcc, "nvcc", dir.path() / "cache", CutlassSearch{});
  EXPECT_THROW(compiler.compile({.source = kernel("#include <cute/tensor.hpp>\n"), .arch = "sm_90a"}), Error);
}

}  // namespace
}  // namespace kopt::build
