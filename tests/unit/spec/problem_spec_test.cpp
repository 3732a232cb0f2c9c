#include "kopt/spec/problem_spec.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "kopt/core/error.hpp"
#include "kopt/core/files.hpp"

namespace kopt::spec {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr std::string_view kSgemmKernel =
    "extern \"C\" void solve(const float* A, const float* B, float* C, int M, int N, int K) {}\n";

constexpr std::string_view kSgemmSpec = R"toml(name = "sgemm"
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
  const fs::path& path() const { return dir_.path(); }
  fs::path operator/(const std::string& name) const { return dir_.path() / name; }

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

std::string spec_error(std::string_view toml) {
  return error_of([&] { parse_problem_spec(toml, "/nowhere/problem", "kopt.toml"); });
}

ProblemSpec parse_text(std::string_view toml) {
  return parse_problem_spec(toml, "/nowhere/problem", "kopt.toml");
}

KernelSignature signature_of(std::string_view source) { return parse_kernel_signature(source, "kernel.cu"); }

std::string bind_error(std::string_view toml, std::string_view source, const Dims& overrides = {}) {
  return error_of([&] { bind_problem(parse_text(toml), signature_of(source), overrides); });
}

const BoundBuffer& buffer(const BoundCase& bound, std::size_t index) { return *bound.args.at(index).buffer; }
const BoundScalar& scalar(const BoundCase& bound, std::size_t index) { return *bound.args.at(index).scalar; }

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
          "kopt.toml:4: unknown key \"shpe\" in [buffers.A] (known: shape, init, tolerance, atol, rtol)"));
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

TEST(InitSpec, ParsesEverySpelling) {
  InitSpec normal = InitSpec::parse("normal");
  EXPECT_EQ(normal.kind, InitKind::normal);
  EXPECT_EQ(normal.b, 1);
  InitSpec shifted = InitSpec::parse(" normal( 1.5 , 0.25 ) ");
  EXPECT_EQ(shifted.a, 1.5);
  EXPECT_EQ(shifted.b, 0.25);
  EXPECT_EQ(InitSpec::parse("uniform(-1,1)").kind, InitKind::uniform);
  InitSpec integers = InitSpec::parse("int(0,99)");
  EXPECT_EQ(integers.kind, InitKind::integers);
  EXPECT_EQ(integers.b, 99);
  EXPECT_EQ(InitSpec::parse("zeros").kind, InitKind::zeros);
  EXPECT_EQ(InitSpec::parse("ones").kind, InitKind::ones);
}

TEST(InitSpec, WritesTextThatParsesBack) {
  for (std::string_view text :
       {"normal", "normal(1.5,0.25)", "uniform(-1,1)", "int(0,99)", "zeros", "ones"}) {
    EXPECT_EQ(InitSpec::parse(text).text(), text);
  }
}

TEST(InitSpec, RejectsMalformedSpellingsQuotingThem) {
  auto init_error = [](std::string_view text) { return error_of([&] { InitSpec::parse(text); }); };
  EXPECT_THAT(init_error("gaussian"),
              HasSubstr("init \"gaussian\": expected normal, normal(mean,std), uniform(lo,hi)"));
  EXPECT_THAT(init_error("uniform(1)"), HasSubstr("expected normal"));
  EXPECT_THAT(init_error("uniform(1,x)"), HasSubstr("\"x\" is not a number"));
  EXPECT_THAT(init_error("uniform(2,1)"), HasSubstr("needs lo < hi"));
  EXPECT_THAT(init_error("normal(0,0)"), HasSubstr("standard deviation must be > 0"));
  EXPECT_THAT(init_error("int(0.5,3)"), HasSubstr("whole numbers"));
  EXPECT_THAT(init_error("zeros(1,2)"), HasSubstr("expected normal"));
  EXPECT_THAT(init_error("int(0,3"), HasSubstr("expected normal"));
}

TEST(ProblemBinding, BindsEveryCaseInSignatureOrder) {
  std::string toml(kSgemmSpec);
  toml.replace(toml.find("reference = \"ref.py\"\n"), 21, "");
  Problem problem = bind_problem(parse_text(toml), signature_of(kSgemmKernel));
  ASSERT_EQ(problem.cases.size(), 3u);
  const BoundCase& first = problem.cases[0];
  EXPECT_EQ(first.name, "default");
  ASSERT_EQ(first.args.size(), 6u);
  EXPECT_EQ(buffer(first, 0).name, "A");
  EXPECT_EQ(buffer(first, 0).elements, 4096 * 512);
  EXPECT_EQ(buffer(first, 0).bytes(), 4096 * 512 * 4);
  EXPECT_FALSE(buffer(first, 0).is_output);
  EXPECT_EQ(buffer(first, 0).init->text(), "uniform(-1,1)");
  EXPECT_THAT(buffer(first, 1).shape, ElementsAre(512, 2048));
  EXPECT_EQ(buffer(first, 1).init->text(), "normal");  // default for a floating input
  EXPECT_TRUE(buffer(first, 2).is_output);
  EXPECT_FALSE(buffer(first, 2).init.has_value());
  EXPECT_DOUBLE_EQ(buffer(first, 2).tolerance.atol, 1e-3);  // per buffer beats [tolerance]
  EXPECT_EQ(scalar(first, 3).name, "M");
  EXPECT_EQ(scalar(first, 3).value, Number{std::int64_t{4096}});
  EXPECT_EQ(scalar(first, 5).dtype->name, "int32");
  EXPECT_EQ(buffer(problem.cases[2], 2).elements, 8 * 2048);
  EXPECT_TRUE(problem.guesses.empty());
}

TEST(ProblemBinding, TakesToleranceFromTheSpecThenTheDtype) {
  constexpr std::string_view kernel = "extern \"C\" void solve(const __half* x, __half* y, int N) {}";
  Problem with_table = bind_problem(parse_text("kernel = \"k.cu\"\n[dims]\nN = 8\n[tolerance]\natol = 0.5\n"),
                                    signature_of(kernel));
  EXPECT_EQ(buffer(with_table.cases[0], 1).tolerance.atol, 0.5);
  EXPECT_EQ(buffer(with_table.cases[0], 1).tolerance.rtol, 0);
  Problem by_dtype = bind_problem(parse_text("kernel = \"k.cu\"\n[dims]\nN = 8\n"), signature_of(kernel));
  EXPECT_EQ(buffer(by_dtype.cases[0], 1).tolerance.atol, 1e-2);
  EXPECT_EQ(buffer(by_dtype.cases[0], 1).tolerance.rtol, 1e-2);
}

TEST(ProblemBinding, FillsIntegerInputsWithDocumentedDefaultsAndOutputsWithInitAreInOut) {
  Problem problem = bind_problem(
      parse_text("kernel = \"k.cu\"\n[dims]\nN = 8\n[buffers.hist]\ninit = \"zeros\"\n"),
      signature_of(
          "extern \"C\" void solve(const int* idx, const unsigned* w, unsigned int* hist, int N) {}"));
  const BoundCase& bound = problem.cases[0];
  EXPECT_EQ(buffer(bound, 0).init->text(), "int(-100,100)");
  EXPECT_EQ(buffer(bound, 1).init->text(), "int(0,100)");
  EXPECT_TRUE(buffer(bound, 2).is_output);
  EXPECT_EQ(buffer(bound, 2).init->kind, InitKind::zeros);
  EXPECT_EQ(buffer(bound, 2).tolerance.atol, 0);
}

TEST(ProblemBinding, SizesBuffersFromALoneIntegerScalarAndSaysSo) {
  Problem problem =
      bind_problem(parse_text("kernel = \"k.cu\"\n[dims]\nN = 1000\nalpha = 2.5\n"),
                   signature_of("extern \"C\" void solve(const float* X, float* Y, float alpha, int N) {}"));
  EXPECT_EQ(buffer(problem.cases[0], 0).elements, 1000);
  EXPECT_EQ(scalar(problem.cases[0], 2).value, Number{2.5});
  EXPECT_THAT(problem.guesses,
              ElementsAre("buffer X: 1000 elements (the value of N; no [buffers.X] in kopt.toml)",
                          "buffer Y: 1000 elements (the value of N; no [buffers.Y] in kopt.toml)"));
}

TEST(ProblemBinding, AppliesDimOverridesToEveryCase) {
  Problem problem =
      bind_problem(parse_text("kernel = \"k.cu\"\n[dims]\nN = 8\n[[cases]]\nN = 16\n"),
                   signature_of("extern \"C\" void solve(float* Y, int N) {}"), {{"N", std::int64_t{5}}});
  EXPECT_EQ(buffer(problem.cases[0], 0).elements, 5);
  EXPECT_EQ(buffer(problem.cases[1], 0).elements, 5);
  EXPECT_THAT(
      bind_error("kernel = \"k.cu\"\n[dims]\nN = 8\n", "extern \"C\" void solve(float* Y, int N) {}",
                 {{"Q", std::int64_t{1}}}),
      HasSubstr("--dim Q: Q is neither a dim of the spec nor a parameter of solve (parameters: Y, N)"));
}

TEST(ProblemBinding, RefusesToGuessTheSizeWithSeveralSizeParameters) {
  EXPECT_EQ(bind_error("kernel = \"k.cu\"\n[dims]\nM = 2\nN = 2\nK = 2\n", kSgemmKernel),
            "cannot infer the size of buffer A: solve has several size parameters (M, N, K); give "
            "[buffers.A] shape = "
            "\"...\" in kopt.toml");
  EXPECT_THAT(bind_error("kernel = \"k.cu\"\n", "extern \"C\" void solve(float* Y, float alpha) {}"),
              HasSubstr("cannot infer the size of buffer Y: solve has no size parameter"));
}

TEST(ProblemBinding, RejectsBuffersThatNameNoParameterOrAScalar) {
  constexpr std::string_view kernel = "extern \"C\" void solve(float* Y, int N) {}";
  EXPECT_THAT(bind_error("kernel = \"k.cu\"\n[dims]\nN = 4\n[buffers.Q]\nshape = \"N\"\n", kernel),
              HasSubstr("[buffers.Q] names no parameter of solve (parameters: Y, N)"));
  EXPECT_THAT(bind_error("kernel = \"k.cu\"\n[dims]\nN = 4\n[buffers.N]\nshape = \"N\"\n", kernel),
              HasSubstr("N is a scalar parameter of solve, not a buffer"));
}

TEST(ProblemBinding, RejectsShapesWithUnknownDimsOrBadSizes) {
  constexpr std::string_view kernel = "extern \"C\" void solve(const double* X, double* Y, int64_t N) {}";
  auto with_shape = [](std::string_view shape, std::string_view n = "4") {
    return fmt::format(
        "kernel = \"k.cu\"\n[dims]\nN = {}\n[buffers.X]\nshape = {}\n[buffers.Y]\nshape = \"N\"\n", n, shape);
  };
  EXPECT_THAT(bind_error(with_shape("\"N*Q\""), kernel),
              HasSubstr("buffer X, case \"default\": expression \"N*Q\": unknown dim \"Q\" (known: N)"));
  EXPECT_THAT(bind_error(with_shape("\"N - 4\""), kernel),
              HasSubstr("buffer X: shape \"N - 4\" gives 0 in case \"default\"; a size must be > 0"));
  EXPECT_THAT(bind_error(with_shape("[\"N\", \"-2\"]"), kernel),
              HasSubstr("buffer X: shape [\"N\", \"-2\"] gives -2"));
  EXPECT_THAT(bind_error(with_shape("[\"N\", \"N\", \"N\"]", "3000000000"), kernel),
              HasSubstr("buffer X: shape [\"N\", \"N\", \"N\"] has too many elements for int64"));
  EXPECT_THAT(bind_error(with_shape("\"N*N\"", "4000000000"), kernel),
              HasSubstr("expression \"N*N\": integer overflow"));
  EXPECT_THAT(bind_error(with_shape("\"N*N\"", "2000000000"), kernel),
              HasSubstr("buffer X: shape \"N*N\" gives 4000000000000000000 elements of 8 bytes, more bytes "
                        "than int64 holds"));
}

TEST(ProblemBinding, RejectsScalarsThatDoNotFitTheirCType) {
  constexpr std::string_view kernel =
      "extern \"C\" void solve(float* Y, int N, unsigned int U, float alpha) {}";
  auto spec = [](std::string_view n, std::string_view u, std::string_view alpha = "1") {
    return fmt::format("kernel = \"k.cu\"\n[dims]\nN = {}\nU = {}\nalpha = {}\n[buffers.Y]\nshape = \"4\"\n",
                       n, u, alpha);
  };
  EXPECT_THAT(
      bind_error(spec("2147483648", "1"), kernel),
      HasSubstr("scalar N of solve is int32 and cannot hold 2147483648 in case \"default\" (out of range)"));
  EXPECT_THAT(bind_error(spec("1", "-1"), kernel),
              HasSubstr("scalar U of solve is uint32 and cannot hold -1"));
  EXPECT_THAT(
      bind_error(spec("0.5", "1"), kernel),
      HasSubstr("scalar N of solve is int32 and cannot hold 0.5 in case \"default\" (not an integer)"));
  EXPECT_THAT(bind_error(spec("1", "1", "1e39"), kernel),
              HasSubstr("scalar alpha of solve is float32 and cannot hold 1e+39"));
  Problem problem = bind_problem(parse_text(spec("-2147483648", "4294967295")), signature_of(kernel));
  EXPECT_EQ(scalar(problem.cases[0], 3).value, Number{1.0});  // an integer dim given to a float is converted
  EXPECT_THAT(bind_error("kernel = \"k.cu\"\n[buffers.Y]\nshape = \"4\"\n",
                         "extern \"C\" void solve(float* Y, int N) {}"),
              HasSubstr("scalar N of solve has no value in case \"default\" (set N in [dims] of kopt.toml, "
                        "or pass --dim N=...)"));
}

TEST(ProblemBinding, RejectsInitsThatDoNotSuitTheBuffer) {
  constexpr std::string_view kernel = "extern \"C\" void solve(const int8_t* X, float* Y, int N) {}";
  EXPECT_THAT(bind_error("kernel = \"k.cu\"\n[dims]\nN = 4\n[buffers.X]\ninit = \"normal\"\n", kernel),
              HasSubstr("[buffers.X] init \"normal\" needs a floating dtype, but X is int8"));
  EXPECT_THAT(bind_error("kernel = \"k.cu\"\n[dims]\nN = 4\n[buffers.X]\ninit = \"int(0,1000)\"\n", kernel),
              HasSubstr("[buffers.X] init \"int(0,1000)\" does not fit int8"));
  EXPECT_THAT(bind_error("kernel = \"k.cu\"\n[dims]\nN = 4\n[buffers.X]\natol = 1\n", kernel),
              HasSubstr("X is an input (const) and is never compared"));
}

TEST(ProblemBinding, ChecksWorkFormulasAgainstEveryCase) {
  EXPECT_THAT(bind_error("kernel = \"k.cu\"\n[dims]\nN = 4\n[work]\nflops = \"2*N*Z\"\n",
                         "extern \"C\" void solve(float* Y, int N) {}"),
              HasSubstr("[work] flops, case \"default\": expression \"2*N*Z\": unknown dim \"Z\""));
}

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
              HasSubstr("cannot infer the size of buffer A: solve has several size parameters (M, N, K)"));
  EXPECT_THAT(error_of([&] { load_problem(folder / "saxpy.cu", std::nullopt, {}); }),
              HasSubstr("scalar alpha of solve has no value in case \"default\" (set alpha in [dims] of "
                        "kopt.toml, or pass --dim alpha=...)"));
}

TEST(LocateProblem, FindsTheSpecFromAFolderATomlOrAKernelBesideIt) {
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

TEST(LocateProblem, ExplainsWhatItCannotUse) {
  SpecFolder folder;
  folder.add("notes.txt", "");
  EXPECT_THAT(error_of([&] { locate_problem(folder.path()); }),
              HasSubstr("no kopt.toml in this folder; name a .cu file or give --spec"));
  EXPECT_THAT(error_of([&] { locate_problem(folder / "missing.cu"); }),
              HasSubstr("missing.cu: no such file or folder"));
  EXPECT_THAT(error_of([&] { locate_problem(folder / "notes.txt"); }),
              HasSubstr("expected a .cu kernel, a kopt.toml or a folder"));
}

TEST(LoadProblem, NamesTheKernelFileInSignatureErrors) {
  SpecFolder folder;
  folder.add("bad.cu", "extern \"C\" void solve(float** X, int N) {}\n");
  EXPECT_THAT(error_of([&] { load_problem(folder / "bad.cu", std::nullopt, {}); }),
              HasSubstr("bad.cu:1: cannot parse parameter 1 of solve (\"float** X\")"));
}

}  // namespace
}  // namespace kopt::spec
