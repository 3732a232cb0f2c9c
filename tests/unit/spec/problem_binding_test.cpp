#include <limits>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "kopt/spec/problem_spec.hpp"
#include "spec_test_support.hpp"

namespace kopt::spec {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(ProblemSpecBinding, BindsEveryCaseInSignatureOrder) {
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

TEST(ProblemSpecBinding, TakesToleranceFromTheSpecThenTheDtype) {
  constexpr std::string_view kernel = "extern \"C\" void solve(const __half* x, __half* y, int N) {}";
  Problem with_table = bind_problem(parse_text("kernel = \"k.cu\"\n[dims]\nN = 8\n[tolerance]\natol = 0.5\n"),
                                    signature_of(kernel));
  EXPECT_EQ(buffer(with_table.cases[0], 1).tolerance.atol, 0.5);
  EXPECT_EQ(buffer(with_table.cases[0], 1).tolerance.rtol, 0);
  Problem by_dtype = bind_problem(parse_text("kernel = \"k.cu\"\n[dims]\nN = 8\n"), signature_of(kernel));
  EXPECT_EQ(buffer(by_dtype.cases[0], 1).tolerance.atol, 1e-2);
  EXPECT_EQ(buffer(by_dtype.cases[0], 1).tolerance.rtol, 1e-2);
}

// [buffers.x] dtype pins the problem's dtype: a float* kernel does not bind to an fp16 problem.
TEST(ProblemSpecBinding, RefusesAKernelWhoseBufferIsNotThePinnedDtype) {
  constexpr std::string_view spec = "kernel = \"k.cu\"\n[dims]\nN = 8\n[buffers.y]\ndtype = \"float16\"\n";
  Problem pinned = bind_problem(parse_text(spec), signature_of("extern \"C\" void solve(const half* x, half* y, int N) {}"));
  EXPECT_EQ(buffer(pinned.cases[0], 1).dtype->name, "float16");
  EXPECT_THAT(bind_error(spec, "extern \"C\" void solve(const float* x, float* y, int N) {}"),
              HasSubstr("[buffers.y] dtype is float16, but solve's y is float32: the kernel must take the problem's dtype"));
  EXPECT_THAT(spec_error("kernel = \"k.cu\"\n[dims]\nN = 8\n[buffers.y]\ndtype = \"fp16\"\n"),
              HasSubstr("[buffers.y] dtype must be one of float64, float32, float16"));
}

// full(v) on an integer buffer must be a whole number that fits it.
TEST(ProblemSpecBinding, FillsAConstantThatFitsTheDtype) {
  constexpr std::string_view kernel = "extern \"C\" void solve(const int* x, int* y, int N) {}";
  Problem two = bind_problem(parse_text("kernel = \"k.cu\"\n[dims]\nN = 8\n[buffers.x]\ninit = \"full(2)\"\n"),
                             signature_of(kernel));
  EXPECT_EQ(buffer(two.cases[0], 0).init->text(), "full(2)");
  EXPECT_THAT(bind_error("kernel = \"k.cu\"\n[dims]\nN = 8\n[buffers.x]\ninit = \"full(2.5)\"\n", kernel),
              HasSubstr("init \"full(2.5)\" does not fit int32"));
}

// values(...) holds one value per element, each one the buffer's type can hold.
TEST(ProblemSpecBinding, ListsOneValuePerElementThatFitsTheDtype) {
  constexpr std::string_view kernel = "extern \"C\" void solve(const int* x, int* y, int N) {}";
  Problem listed = bind_problem(parse_text("kernel = \"k.cu\"\n[dims]\nN = 3\n[buffers.x]\ninit = \"values(N, 2, 1)\"\n"),
                                signature_of(kernel));
  EXPECT_EQ(buffer(listed.cases[0], 0).init->values, (std::vector<double>{3, 2, 1}));
  EXPECT_THAT(bind_error("kernel = \"k.cu\"\n[dims]\nN = 4\n[buffers.x]\ninit = \"values(1, 2, 3)\"\n", kernel),
              HasSubstr("buffer x: init values(1,2,3) gives 3 values for 4 elements in case \"default\""));
  EXPECT_THAT(bind_error("kernel = \"k.cu\"\n[dims]\nN = 2\n[buffers.x]\ninit = \"values(1, 2.5)\"\n", kernel),
              HasSubstr("init \"values(1, 2.5)\" does not fit int32"));
  EXPECT_THAT(bind_error("kernel = \"k.cu\"\n[dims]\nN = 2\n[buffers.x]\ninit = \"values(1, -inf)\"\n", kernel),
              HasSubstr("[buffers.x] init \"values(1, -inf)\" holds a non-finite value, which int32 cannot hold"));
  constexpr std::string_view floating = "extern \"C\" void solve(const float* x, float* y, int N) {}";
  Problem edge = bind_problem(parse_text("kernel = \"k.cu\"\n[dims]\nN = 2\n[buffers.x]\ninit = \"values(-inf, nan)\"\n"),
                              signature_of(floating));
  EXPECT_EQ(buffer(edge.cases[0], 0).init->values[0], -std::numeric_limits<double>::infinity());
}

TEST(ProblemSpecBinding, FillsIntegerInputsWithDocumentedDefaultsAndOutputsWithInitAreInOut) {
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

TEST(ProblemSpecBinding, SizesBuffersFromALoneIntegerScalarAndSaysSo) {
  Problem problem =
      bind_problem(parse_text("kernel = \"k.cu\"\n[dims]\nN = 1000\nalpha = 2.5\n"),
                   signature_of("extern \"C\" void solve(const float* X, float* Y, float alpha, int N) {}"));
  EXPECT_EQ(buffer(problem.cases[0], 0).elements, 1000);
  EXPECT_EQ(scalar(problem.cases[0], 2).value, Number{2.5});
  EXPECT_THAT(problem.guesses,
              ElementsAre("buffer X: 1000 elements (the value of N; no [buffers.X] in kopt.toml)",
                          "buffer Y: 1000 elements (the value of N; no [buffers.Y] in kopt.toml)"));
}

TEST(ProblemSpecBinding, AppliesDimOverridesToEveryCase) {
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

TEST(ProblemSpecBinding, RefusesToGuessTheSizeWithSeveralSizeParameters) {
  EXPECT_EQ(bind_error("kernel = \"k.cu\"\n[dims]\nM = 2\nN = 2\nK = 2\n", kSgemmKernel),
            "cannot infer the size of buffer A: solve has several size parameters (M, N, K); give "
            "[buffers.A] shape = "
            "\"...\" in kopt.toml");
  EXPECT_THAT(bind_error("kernel = \"k.cu\"\n", "extern \"C\" void solve(float* Y, float alpha) {}"),
              HasSubstr("cannot infer the size of buffer Y: solve has no size parameter"));
}

TEST(ProblemSpecBinding, RejectsBuffersThatNameNoParameterOrAScalar) {
  constexpr std::string_view kernel = "extern \"C\" void solve(float* Y, int N) {}";
  EXPECT_THAT(bind_error("kernel = \"k.cu\"\n[dims]\nN = 4\n[buffers.Q]\nshape = \"N\"\n", kernel),
              HasSubstr("[buffers.Q] names no parameter of solve (parameters: Y, N)"));
  EXPECT_THAT(bind_error("kernel = \"k.cu\"\n[dims]\nN = 4\n[buffers.N]\nshape = \"N\"\n", kernel),
              HasSubstr("N is a scalar parameter of solve, not a buffer"));
}

TEST(ProblemSpecBinding, RejectsShapesWithUnknownDimsOrBadSizes) {
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

TEST(ProblemSpecBinding, RejectsScalarsThatDoNotFitTheirCType) {
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
                        "or pass --dim N=... or --N=...)"));
}

TEST(ProblemSpecBinding, RejectsInitsThatDoNotSuitTheBuffer) {
  constexpr std::string_view kernel = "extern \"C\" void solve(const int8_t* X, float* Y, int N) {}";
  EXPECT_THAT(bind_error("kernel = \"k.cu\"\n[dims]\nN = 4\n[buffers.X]\ninit = \"normal\"\n", kernel),
              HasSubstr("[buffers.X] init \"normal\" needs a floating dtype, but X is int8"));
  EXPECT_THAT(bind_error("kernel = \"k.cu\"\n[dims]\nN = 4\n[buffers.X]\ninit = \"int(0,1000)\"\n", kernel),
              HasSubstr("[buffers.X] init \"int(0,1000)\" does not fit int8"));
  EXPECT_THAT(bind_error("kernel = \"k.cu\"\n[dims]\nN = 4\n[buffers.X]\natol = 1\n", kernel),
              HasSubstr("X is an input (const) and is never compared"));
}

TEST(ProblemSpecBinding, EvaluatesInitBoundsPerCase) {
  constexpr std::string_view kernel =
      "extern \"C\" void solve(const int* input, int* histogram, int N, int num_bins) {}";
  constexpr std::string_view toml =
      "kernel = \"k.cu\"\n[dims]\nN = 1024\nnum_bins = 256\n[[cases]]\nnum_bins = 7\n"
      "[buffers.input]\nshape = \"N\"\ninit = \"int[0, num_bins)\"\n"
      "[buffers.histogram]\nshape = \"num_bins\"\n";
  Problem problem = bind_problem(parse_text(toml), signature_of(kernel));
  EXPECT_EQ(buffer(problem.cases[0], 0).init->text(), "int(0,255)");
  EXPECT_EQ(buffer(problem.cases[1], 0).init->text(), "int(0,6)");
  EXPECT_EQ(problem.spec.buffers.at("input").init->text(), "int[0, num_bins)");  // as written
  EXPECT_THAT(bind_error(toml, kernel, {{"num_bins", std::int64_t{0}}}),
              HasSubstr("[buffers.input], case \"default\": init \"int[0, num_bins)\": int[lo,hi) needs lo < hi"));
  constexpr std::string_view narrow = "extern \"C\" void solve(const int8_t* input, int* histogram, int N, int num_bins) {}";
  EXPECT_THAT(bind_error(toml, narrow),
              HasSubstr("[buffers.input] init \"int[0, num_bins)\" does not fit int8 (it is int(0,255) in case "
                        "\"default\")"));
  EXPECT_THAT(bind_error("kernel = \"k.cu\"\n[dims]\nN = 4\nnum_bins = 2\n[buffers.input]\nshape = \"N\"\ninit = \"int(0, bins)\"\n"
                         "[buffers.histogram]\nshape = \"num_bins\"\n",
                         kernel),
              HasSubstr("[buffers.input], case \"default\": init \"int(0, bins)\": expression \"bins\": unknown dim "
                        "\"bins\" (known: N, num_bins)"));
}

// A suite's edge case (all zeros, a narrower range) keeps its own values: a case's init lays
// over [buffers] init for that case alone.
TEST(ProblemSpecBinding, ACasesOwnInitFillsItsInputsForThatCaseAlone) {
  constexpr std::string_view kernel = "extern \"C\" void solve(const float* x, const int* idx, float* y, int N) {}";
  constexpr std::string_view toml =
      "kernel = \"k.cu\"\n[dims]\nN = 1024\n"
      "[[cases]]\nname = \"zeros\"\nN = 42\ninit = { x = \"zeros\", idx = \"int[0, N)\" }\n"
      "[[cases]]\nname = \"plain\"\nN = 8\n"
      "[buffers.x]\nshape = \"N\"\ninit = \"uniform(-100, 100)\"\n"
      "[buffers.idx]\nshape = \"N\"\ninit = \"int(0, 3)\"\n[buffers.y]\nshape = \"N\"\n";
  Problem problem = bind_problem(parse_text(toml), signature_of(kernel));
  ASSERT_EQ(problem.cases.size(), 3u);
  EXPECT_EQ(buffer(problem.cases[0], 0).init->text(), "uniform(-100,100)");
  EXPECT_EQ(buffer(problem.cases[1], 0).init->text(), "zeros");
  EXPECT_EQ(buffer(problem.cases[1], 1).init->text(), "int(0,41)");  // its bounds read the case's dims
  EXPECT_EQ(buffer(problem.cases[2], 0).init->text(), "uniform(-100,100)");
  EXPECT_EQ(buffer(problem.cases[2], 1).init->text(), "int(0,3)");
}

TEST(ProblemSpecBinding, ACasesOwnInitNamesAnInputThatCanHoldIt) {
  constexpr std::string_view kernel = "extern \"C\" void solve(const float* x, const int* idx, float* y, int N) {}";
  const auto spec = [](std::string_view init) {
    return fmt::format("kernel = \"k.cu\"\n[dims]\nN = 4\n[[cases]]\nname = \"c\"\nN = 2\ninit = {{ {} }}\n", init);
  };
  EXPECT_THAT(bind_error(spec("w = \"zeros\""), kernel), HasSubstr("case \"c\": init names w, not a buffer of solve"));
  EXPECT_THAT(bind_error(spec("N = \"zeros\""), kernel), HasSubstr("case \"c\": init names N, not a buffer of solve"));
  EXPECT_THAT(bind_error(spec("y = \"ones\""), kernel),
              HasSubstr("case \"c\": init names y, an output; a case may fill only the inputs"));
  EXPECT_THAT(bind_error(spec("idx = \"normal\""), kernel),
              HasSubstr("[[cases]] init.idx of case \"c\": init \"normal\" needs a floating dtype, but idx is int32"));
  EXPECT_THAT(bind_error(spec("idx = \"int[0, M)\""), kernel),
              HasSubstr("[[cases]] init.idx, case \"c\": init \"int[0, M)\""));
}

TEST(ProblemSpecBinding, ChecksWorkFormulasAgainstEveryCase) {
  EXPECT_THAT(bind_error("kernel = \"k.cu\"\n[dims]\nN = 4\n[work]\nflops = \"2*N*Z\"\n",
                         "extern \"C\" void solve(float* Y, int N) {}"),
              HasSubstr("[work] flops, case \"default\": expression \"2*N*Z\": unknown dim \"Z\""));
}

}  // namespace
}  // namespace kopt::spec
