#include "kopt/sass/kernel_sass.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>

#include "kopt/core/error.hpp"
#include "kopt/core/files.hpp"

namespace kopt::sass {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

// nvcc that writes a library (or refuses a source saying "syntax error") and a cuobjdump that
// answers with a real dump kept in the fixtures: the machine code of sgemm_naive for sm_90.
class FakeCudaTools final : public ProcessRunner {
 public:
  ProcessResult run(const ProcessSpec& spec) override {
    commands.push_back(spec.argv);
    ProcessResult result{.started = true, .exit_status = 0};
    if (spec.argv.at(0) == "cuobjdump") {
      result.out = read_file(fs::path(KOPT_FIXTURES_DIR) / "sass" / "cuobjdump13.0_sm90_sgemm_naive.txt");
      return result;
    }
    if (spec.argv.size() == 2 && spec.argv[1] == "--version") {
      result.out = "Cuda compilation tools, release 13.0, V13.0.88\n";
      return result;
    }
    const auto out = std::ranges::find(spec.argv, "-o");
    const std::string& source = spec.argv[static_cast<std::size_t>(out - spec.argv.begin()) + 2];
    if (source.ends_with(".cu") && read_file(source).find("syntax error") != std::string::npos) {
      result.exit_status = 2;
      result.err = source + "(1): error: expected a \";\"\n";
      return result;
    }
    write_file_atomic(*(out + 1), "ELF");
    return result;
  }
  bool ran_with(const std::string& word) const {
    return std::ranges::any_of(commands, [&](const auto& argv) { return std::ranges::find(argv, word) != argv.end(); });
  }
  std::vector<std::vector<std::string>> commands;
};

class KernelSassTest : public ::testing::Test {
 protected:
  TempDir dir{"kernel-sass-test"};
  FakeCudaTools runner;
  FixedToolchain tools{{{Tool::nvcc, "nvcc"}, {Tool::cuobjdump, "cuobjdump"}}};
  Context context{.runner = runner, .tools = tools, .cache_dir = dir.path() / "cache"};

  fs::path kernel(const std::string& text) {
    write_file_atomic(dir.path() / "k.cu", text);
    return dir.path() / "k.cu";
  }
};

TEST(TargetArch, TheOptionThenTheSpecAndOnlyThenTheProbedGpu) {
  int probes = 0;
  const auto probe = [&] {
    ++probes;
    return std::string("sm_100a");
  };
  EXPECT_EQ(target_arch("sm_90a", std::nullopt, probe), "sm_90a");
  EXPECT_EQ(target_arch("sm_90a", std::string("sm_80"), probe), "sm_80");
  EXPECT_EQ(probes, 0);
  // No arch named anywhere: the GPU's own, never an assumed sm_90.
  EXPECT_EQ(target_arch("native", std::nullopt, probe), "sm_100a");
  EXPECT_EQ(target_arch("", std::nullopt, probe), "sm_100a");
  EXPECT_EQ(probes, 2);
}

TEST_F(KernelSassTest, CompilesForTheArchAndKeepsOnlyTheKernelsOwnFunctions) {
  const KernelSassOutcome outcome =
      kernel_sass(context, {.kernel = kernel("extern \"C\" void solve() {}\n"), .arch = "sm_90"});
  ASSERT_TRUE(outcome.ok()) << outcome.failure;
  EXPECT_TRUE(runner.ran_with("-gencode=arch=compute_90,code=sm_90"));
  EXPECT_EQ(outcome.sass->arch, "sm_90");
  ASSERT_EQ(outcome.sass->profile.functions.size(), 1u);
  EXPECT_THAT(outcome.sass->profile.functions.front().name, HasSubstr("sgemm_naive"));
  EXPECT_EQ(kernel_sass_json("k.cu", *outcome.sass).at("functions").size(), 1u);
}

TEST_F(KernelSassTest, ACompileErrorIsAnOutcomeNotAnException) {
  const KernelSassOutcome outcome = kernel_sass(context, {.kernel = kernel("syntax error\n"), .arch = "sm_90"});
  EXPECT_FALSE(outcome.ok());
  EXPECT_THAT(outcome.failure, HasSubstr("does not compile: "));
  EXPECT_THAT(outcome.failure, HasSubstr("expected a"));
  EXPECT_FALSE(runner.ran_with("-sass"));
}

TEST_F(KernelSassTest, AMissingCuobjdumpIsAnEnvironmentError) {
  FixedToolchain nvcc_only{{{Tool::nvcc, "nvcc"}}};
  Context without{.runner = runner, .tools = nvcc_only, .cache_dir = dir.path() / "cache"};
  try {
    kernel_sass(without, {.kernel = kernel("extern \"C\" void solve() {}\n"), .arch = "sm_90"});
    FAIL() << "expected an environment error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::environment);
  }
}

TEST(PairedFunctions, OneEachIsPairedWhateverTheNamesElseByName) {
  SassProfile a{.functions = {{.name = "f"}}}, b{.functions = {{.name = "g"}}};
  ASSERT_EQ(paired_functions(a, b).size(), 1u);
  a.functions.push_back({.name = "h"});
  b.functions.push_back({.name = "h"});
  const auto pairs = paired_functions(a, b);
  ASSERT_EQ(pairs.size(), 1u);
  EXPECT_EQ(pairs.front().second->name, "h");
}

}  // namespace
}  // namespace kopt::sass
