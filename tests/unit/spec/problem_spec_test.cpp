#include "kopt/spec/problem_spec.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "spec_test_support.hpp"

namespace kopt::spec {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(ProblemSpec, ReadsEveryFieldOfAFullSpec) {
  SpecFolder folder;
  folder.add("ref.py", "def reference(**kwargs): pass\n");
  ProblemSpec spec = parse_problem_spec(kSgemmSpec, folder.path(), "kopt.toml");
  EXPECT_EQ(spec.name, "sgemm");
  EXPECT_EQ(spec.kernel, folder / "sgemm_naive.cu");
  EXPECT_EQ(spec.reference, folder / "ref.py");
  EXPECT_EQ(spec.entry, "solve");
  ASSERT_EQ(spec.cases.size(), 3u);
  EXPECT_EQ(spec.buffers.at("A").shape[0].text(), "M*K");
  EXPECT_EQ(spec.buffers.at("A").init->text(), "uniform(-1,1)");
  EXPECT_EQ(spec.buffers.at("B").shape.size(), 2u);
  EXPECT_FALSE(spec.buffers.at("B").init.has_value());
  EXPECT_DOUBLE_EQ(spec.buffers.at("C").tolerance->atol, 1e-3);
  EXPECT_DOUBLE_EQ(spec.tolerance->rtol, 1e-3);
  EXPECT_EQ(spec.work.flops->text(), "2*M*N*K");
  EXPECT_EQ(spec.work.bytes->text(), "4*(M*K + K*N + M*N)");
  EXPECT_THAT(spec.build.flags, ElementsAre("-use_fast_math"));
  EXPECT_EQ(spec.build.arch, "sm_90a");
  ASSERT_EQ(spec.tune.params.size(), 3u);
  EXPECT_EQ(spec.tune.params[0].first, "BM");  // spec order, not alphabetical
  EXPECT_THAT(spec.tune.params[0].second, ElementsAre("32", "64", "128"));
  EXPECT_EQ(spec.tune.params[1].first, "BN");
  EXPECT_THAT(spec.tune.params[2].second, ElementsAre("a", "b"));
  ASSERT_EQ(spec.tune.restrictions.size(), 1u);
  EXPECT_EQ(spec.tune.restrictions[0].text(), "BM*BN <= 16384");
  EXPECT_TRUE(spec.guesses.empty());
}

TEST(ProblemSpec, LaysEachCaseOverTheDefaultDimsAndNamesIt) {
  ProblemSpec spec =
      parse_text(std::string(kSgemmSpec).replace(kSgemmSpec.find("reference = \"ref.py\"\n"), 21, ""));
  ASSERT_EQ(spec.cases.size(), 3u);
  EXPECT_EQ(spec.cases[0].name, "default");
  EXPECT_EQ(spec.cases[0].dims.at("M"), Number{std::int64_t{4096}});
  EXPECT_EQ(spec.cases[1].name, "M=1024 N=1024 K=128");  // the spec's order of keys
  EXPECT_EQ(spec.cases[2].name, "skinny");
  EXPECT_EQ(spec.cases[2].dims.at("M"), Number{std::int64_t{8}});
  EXPECT_EQ(spec.cases[2].dims.at("N"), Number{std::int64_t{2048}});  // from [dims]
  EXPECT_EQ(spec.cases[2].dims.count("name"), 0u);
}

TEST(ProblemSpec, ReadsACasesOwnInitsAsATable) {
  const ProblemSpec spec = parse_text(
      "kernel = \"k.cu\"\n[dims]\nN = 8\n[[cases]]\nN = 2\ninit = { x = \"zeros\", w = \"uniform(-1, 1)\" }\n");
  ASSERT_EQ(spec.cases.size(), 2u);
  EXPECT_EQ(spec.cases[1].name, "N=2");  // the inits are not dims: the name is the dims'
  ASSERT_EQ(spec.cases[1].inits.size(), 2u);
  EXPECT_EQ(spec.cases[1].inits.at("x").text(), "zeros");
  EXPECT_EQ(spec.cases[1].inits.at("w").text(), "uniform(-1, 1)");
  EXPECT_TRUE(spec.cases[0].inits.empty());
  EXPECT_THAT(spec_error("kernel = \"k.cu\"\n[dims]\nN = 8\n[[cases]]\nN = 2\ninit = \"zeros\"\n"),
              HasSubstr("kopt.toml:6: init must be a table, not a string"));
  EXPECT_THAT(spec_error("kernel = \"k.cu\"\n[dims]\nN = 8\n[[cases]]\nN = 2\ninit = { x = \"gauss\" }\n"),
              HasSubstr("[[cases]] init.x:"));
}

TEST(ProblemSpec, UsesCasesAloneWhenThereIsNoDimsTable) {
  ProblemSpec spec = parse_text("kernel = \"k.cu\"\n[[cases]]\nN = 10\nalpha = 0.5\n[[cases]]\nN = 20\n");
  ASSERT_EQ(spec.cases.size(), 2u);
  EXPECT_EQ(spec.cases[0].name, "N=10 alpha=0.5");
  EXPECT_EQ(spec.cases[0].dims.at("alpha"), Number{0.5});
  EXPECT_EQ(spec.cases[1].name, "N=20");
}

TEST(ProblemSpec, DefaultsWhatItDoesNotSay) {
  ProblemSpec spec = parse_text("kernel = \"k.cu\"\n");
  EXPECT_EQ(spec.name, "problem");  // the folder's name
  EXPECT_EQ(spec.directory, fs::path("/nowhere/problem"));
  EXPECT_EQ(spec.kernel, fs::path("/nowhere/problem/k.cu"));
  ASSERT_EQ(spec.cases.size(), 1u);
  EXPECT_EQ(spec.cases[0].name, "default");
  EXPECT_FALSE(spec.reference.has_value());
  EXPECT_FALSE(spec.tolerance.has_value());
  EXPECT_EQ(spec.build.arch, "native");
  EXPECT_TRUE(spec.tune.params.empty());
}

TEST(ProblemSpec, AcceptsBareNumbersAndPerBufferToleranceKeys) {
  ProblemSpec spec = parse_text(R"toml(kernel = "k.cu"
[buffers.out]
shape = 1
rtol = 0.5
[work]
flops = 1000
bytes = 2.5e3
[tune]
UNROLL = [1, 2.5, "4u"]
)toml");
  EXPECT_EQ(spec.buffers.at("out").shape[0].text(), "1");
  EXPECT_EQ(spec.buffers.at("out").tolerance->rtol, 0.5);
  EXPECT_EQ(spec.buffers.at("out").tolerance->atol, 0);
  EXPECT_EQ(spec.work.flops->text(), "1000");
  EXPECT_EQ(spec.work.bytes->text(), "2500.0");
  EXPECT_THAT(spec.tune.params[0].second, ElementsAre("1", "2.5", "4u"));
  EXPECT_THAT(spec_error("kernel = \"k.cu\"\n[buffers.out]\natol = 1\ntolerance = { rtol = 1 }\n"),
              HasSubstr("give tolerance = {...} or atol/rtol, not both"));
}

TEST(ProblemSpec, TakesTheOnlyKernelBesideTheSpecWhenNoneIsNamed) {
  SpecFolder folder;
  folder.add("kopt.toml", "[dims]\nN = 4\n").add("vadd.cu", kSgemmKernel).add("ref.cu", kSgemmKernel);
  ProblemSpec spec = load_problem_spec(folder / "kopt.toml");
  EXPECT_EQ(spec.kernel, folder / "vadd.cu");
  EXPECT_EQ(spec.spec_file, folder / "kopt.toml");
  EXPECT_THAT(spec.guesses, ElementsAre(HasSubstr("kernel: vadd.cu (the only .cu file beside")));
  folder.add("other.cu", kSgemmKernel);
  EXPECT_THAT(error_of([&] { load_problem_spec(folder / "kopt.toml"); }),
              HasSubstr("no kernel = \"...\" and several .cu files"));
}

TEST(ProblemSpec, RejectsUnknownKeysWithTheirLine) {
  EXPECT_THAT(spec_error("kernel = \"k.cu\"\nkernal = \"x.cu\"\n"),
              HasSubstr("kopt.toml:2: unknown key \"kernal\" (known: name, kernel, reference"));
  EXPECT_THAT(
      spec_error("kernel = \"k.cu\"\n[buffers.A]\nshape = \"N\"\nshpe = \"N\"\n"),
      HasSubstr(
          "kopt.toml:4: unknown key \"shpe\" in [buffers.A] (known: shape, init, dtype, tolerance, atol, rtol)"));
  EXPECT_THAT(spec_error("kernel = \"k.cu\"\n[tolerance]\natol = 1\nrtl = 2\n"),
              HasSubstr("unknown key \"rtl\" in [tolerance]"));
  EXPECT_THAT(spec_error("kernel = \"k.cu\"\n[work]\nflop = \"1\"\n"),
              HasSubstr("unknown key \"flop\" in [work]"));
  EXPECT_THAT(spec_error("kernel = \"k.cu\"\n[build]\nopt = 3\n"),
              HasSubstr("unknown key \"opt\" in [build]"));
}

TEST(ProblemSpec, ReportsTomlSyntaxErrorsWithLineAndColumn) {
  EXPECT_THAT(spec_error("kernel = \"k.cu\"\n[dims\nN = 3\n"), HasSubstr("kopt.toml:2:"));
  EXPECT_THAT(spec_error("kernel = \"k.cu\"\nname = \n"),
              ::testing::MatchesRegex("kopt\\.toml:2:[0-9]+: .*"));
}

TEST(ProblemSpec, RejectsBadValues) {
  EXPECT_THAT(spec_error("kernel = \"k.cu\"\n[dims]\nN = \"big\"\n"),
              HasSubstr("kopt.toml:3: [dims] N must be a number, not a string"));
  EXPECT_THAT(spec_error("kernel = \"k.cu\"\n[buffers.A]\ninit = \"gaussian\"\n"),
              HasSubstr("kopt.toml:3: [buffers.A]: init \"gaussian\": expected normal"));
  EXPECT_THAT(spec_error("kernel = \"k.cu\"\n[buffers.A]\nshape = \"N*\"\n"),
              HasSubstr("[buffers.A] shape: cannot parse expression \"N*\""));
  EXPECT_THAT(spec_error("kernel = \"k.cu\"\n[buffers.A]\nshape = []\n"),
              HasSubstr("[buffers.A] shape is empty"));
  // toml++ 3.3 asserts on this in debug builds (marzer/tomlplusplus#301): kopt/spec/toml.hpp
  // turns its asserts off in every translation unit that parses TOML.
  EXPECT_THAT(spec_error("kernel = \"k.cu\"\n[= buffers.A]\n"), HasSubstr("kopt.toml:2:"));
  EXPECT_THAT(spec_error("kernel = \"k.cu\"\n[tolerance]\natol = -1\n"),
              HasSubstr("[tolerance] atol must be a number >= 0"));
  EXPECT_THAT(spec_error("kernel = \"k.cu\"\n[build]\narch = \"hopper\"\n"),
              HasSubstr("expected \"native\" or sm_XX"));
  EXPECT_THAT(spec_error("kernel = \"k.cu\"\n[tune]\nBM = []\n"),
              HasSubstr("[tune] BM must be a non-empty array"));
  EXPECT_THAT(spec_error("kernel = \"k.cu\"\n[tune]\nBM = [32]\nrestrict = [\"BM * BX < 4\"]\n"),
              HasSubstr("\"BX\" is neither a tune parameter nor a dim"));
  EXPECT_THAT(spec_error("kernel = \"k.cu\"\nentry = \"my entry\"\n"),
              HasSubstr("entry must be a C identifier"));
  EXPECT_THAT(
      spec_error("kernel = \"k.cu\"\n[[cases]]\nname = \"a\"\nN = 1\n[[cases]]\nname = \"a\"\nN = 2\n"),
      HasSubstr("two cases are named \"a\""));
}

TEST(ProblemSpec, RequiresTheReferenceToExist) {
  EXPECT_THAT(
      spec_error("kernel = \"k.cu\"\nreference = \"ref.cu\"\n"),
      HasSubstr("kopt.toml:2: reference \"ref.cu\" does not exist (looked for /nowhere/problem/ref.cu)"));
  EXPECT_THAT(spec_error("kernel = \"k.cu\"\nreference = \"ref.txt\"\n"),
              HasSubstr("must be a .cu or a .py file"));
}

}  // namespace
}  // namespace kopt::spec

namespace kopt::spec {
namespace {

TEST(ProblemSpecCutlass, BuildCutlassBecomesIncludeFlagsRelativeToTheSpec) {
  SpecFolder folder;
  folder.add("third_party/cutlass/include/cutlass/cutlass.h", "#pragma once\n");
  ProblemSpec spec = parse_problem_spec("kernel = \"k.cu\"\n[build]\nflags = [\"-DX=1\"]\ncutlass = \"third_party/cutlass\"\n",
                                        folder.path(), "kopt.toml");
  const fs::path include = std::filesystem::weakly_canonical(folder / "third_party/cutlass/include");
  EXPECT_THAT(spec.build.flags, ::testing::ElementsAre("-DX=1", "-I" + include.string()));
}

TEST(ProblemSpecCutlass, ACutlassFolderWithoutHeadersIsRefusedWithItsLine) {
  EXPECT_THAT(spec_error("kernel = \"k.cu\"\n[build]\ncutlass = \"cutlass\"\n"),
              ::testing::AllOf(::testing::HasSubstr("kopt.toml:3"),
                               ::testing::HasSubstr("[build] cutlass \"/nowhere/problem/cutlass\" holds no cutlass/cutlass.h")));
}

}  // namespace
}  // namespace kopt::spec
