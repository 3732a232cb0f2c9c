#include "kopt/spec/kernel_signature.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "kopt/core/error.hpp"

namespace kopt::spec {
namespace {

using ::testing::HasSubstr;

KernelSignature parse(std::string_view source, const std::optional<std::string>& entry = std::nullopt) {
  return parse_kernel_signature(source, "kernel.cu", entry);
}

std::string signature_error_of(std::string_view source, const std::optional<std::string>& entry = std::nullopt) {
  try {
    parse(source, entry);
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ExitCode::bad_input);
    return error.what();
  }
  return "no error";
}

// The one parameter of `extern "C" void solve(<declaration>) {}`.
KernelParam param_of(const std::string& declaration) {
  KernelSignature signature = parse("extern \"C\" void solve(" + declaration + ") {}");
  EXPECT_EQ(signature.params.size(), 1u) << declaration;
  return signature.params.empty() ? KernelParam{} : signature.params[0];
}

TEST(KernelSignature, ParsesTheLeetGpuContract) {
  KernelSignature signature = parse(R"(#include <cuda_runtime.h>

__global__ void add(const float* a, const float* b, float* c, int n) {}

extern "C" void solve(const float* A, const float* B, float* C, int N) {
  add<<<(N + 255) / 256, 256>>>(A, B, C, N);
}
)");
  EXPECT_EQ(signature.entry, "solve");
  EXPECT_EQ(signature.line, 5);
  ASSERT_EQ(signature.params.size(), 4u);
  EXPECT_EQ(signature.params[0].name, "A");
  EXPECT_TRUE(signature.params[0].is_input_buffer());
  EXPECT_TRUE(signature.params[2].is_output_buffer());
  EXPECT_EQ(signature.params[2].dtype->name, "float32");
  EXPECT_TRUE(signature.params[3].is_scalar());
  EXPECT_EQ(signature.params[3].dtype->name, "int32");
  EXPECT_EQ(signature.find("C"), &signature.params[2]);
  EXPECT_EQ(signature.find("Z"), nullptr);
}

struct QualifierCase {
  std::string declaration;
  std::string name;
  std::string dtype;
  bool is_pointer;
  bool is_const;
};

TEST(KernelSignature, AcceptsEveryQualifierSpelling) {
  const std::vector<QualifierCase> cases = {
      {"const float *__restrict__ A", "A", "float32", true, true},
      {"float const* A", "A", "float32", true, true},
      {"const float* const __restrict__ A", "A", "float32", true, true},
      {"float const * const A", "A", "float32", true, true},
      {"float *A", "A", "float32", true, false},
      {"float* const C", "C", "float32", true, false},
      {"float * __restrict__ C", "C", "float32", true, false},
      {"float *restrict C", "C", "float32", true, false},
      {"float* __restrict C", "C", "float32", true, false},
      {"__restrict__ float* C", "C", "float32", true, false},
      {"volatile int* flags", "flags", "int32", true, false},
      {"const volatile int* flags", "flags", "int32", true, true},
      {"const float* /* odd */ __restrict__ /* places */ A", "A", "float32", true, true},
      {"const int n", "n", "int32", false, true},
      {"int n", "n", "int32", false, false},
  };
  for (const QualifierCase& c : cases) {
    KernelParam param = param_of(c.declaration);
    EXPECT_EQ(param.name, c.name) << c.declaration;
    ASSERT_NE(param.dtype, nullptr) << c.declaration;
    EXPECT_EQ(param.dtype->name, c.dtype) << c.declaration;
    EXPECT_EQ(param.is_pointer, c.is_pointer) << c.declaration;
    EXPECT_EQ(param.is_pointer && param.is_const, c.is_pointer && c.is_const) << c.declaration;
  }
}

TEST(KernelSignature, KeepsTheDeclarationAsWrittenWithWhitespaceCollapsed) {
  EXPECT_EQ(param_of("const   float\n *__restrict__   A").declaration, "const float *__restrict__ A");
}

TEST(KernelSignature, AcceptsEverySpellingInTheDtypeTable) {
  for (const DType& dtype : all_dtypes()) {
    for (const std::string& spelling : dtype.c_names) {
      KernelSignature signature = parse("extern \"C\" void solve(const " + spelling + "* in, " + spelling +
                                        " *out, " + spelling + " value) {}");
      ASSERT_EQ(signature.params.size(), 3u) << spelling;
      for (const KernelParam& param : signature.params) EXPECT_EQ(param.dtype, &dtype) << spelling;
      EXPECT_TRUE(signature.params[0].is_input_buffer()) << spelling;
      EXPECT_TRUE(signature.params[1].is_output_buffer()) << spelling;
      EXPECT_TRUE(signature.params[2].is_scalar()) << spelling;
    }
  }
}

TEST(KernelSignature, AcceptsMultiWordAndQualifiedTypes) {
  EXPECT_EQ(param_of("unsigned int n").dtype->name, "uint32");
  EXPECT_EQ(param_of("unsigned   long long n").dtype->name, "uint64");
  EXPECT_EQ(param_of("long long n").dtype->name, "int64");
  EXPECT_EQ(param_of("unsigned long n").dtype->name, "uint64");
  EXPECT_EQ(param_of("const unsigned char* mask").dtype->name, "uint8");
  EXPECT_EQ(param_of("std::size_t n").dtype->name, "uint64");
  EXPECT_EQ(param_of("::int64_t n").dtype->name, "int64");
}

TEST(KernelSignature, AcceptsHostAttributesAndNewlinesAnywhere) {
  EXPECT_EQ(parse("extern \"C\" __host__ void solve(float* x, int n) {}").params.size(), 2u);
  EXPECT_EQ(
      parse("extern \"C\" __attribute__((visibility(\"default\"))) void solve(float* x) {}").params.size(),
      1u);
  EXPECT_EQ(parse("extern \"C\" [[gnu::cold]] void solve(float* x) {}").params.size(), 1u);
  KernelSignature spread = parse("extern\n\"C\"\nvoid\nsolve\n(\nconst float *\nA\n,\nint\nN\n)\n{\n}\n");
  EXPECT_EQ(spread.line, 4);
  ASSERT_EQ(spread.params.size(), 2u);
  EXPECT_EQ(spread.params[1].name, "N");
}

TEST(KernelSignature, FindsTheEntryInsideAnExternCBlock) {
  KernelSignature signature = parse(R"(
extern "C" {
static int helper(int x) { return x; }
void solve(const double* x, double* y, long n) {
  for (long i = 0; i < n; ++i) { helper(1); }
}
}
)");
  EXPECT_EQ(signature.line, 4);
  ASSERT_EQ(signature.params.size(), 3u);
  EXPECT_EQ(signature.params[0].dtype->name, "float64");
  EXPECT_EQ(signature.params[2].dtype->name, "int64");
}

TEST(KernelSignature, FindsTheEntryInsideNamespacesButNotInsideClasses) {
  EXPECT_EQ(parse("namespace user::detail {\nextern \"C\" void solve(float* x) {}\n}").line, 2);
  EXPECT_THAT(signature_error_of("struct Runner {\n  void solve(float* x) {}\n};"),
              HasSubstr("no extern \"C\" void solve"));
  EXPECT_THAT(signature_error_of("extern \"C\" {\nstruct Runner { void solve(float* x) {} };\n}"),
              HasSubstr("no extern \"C\" void solve"));
}

TEST(KernelSignature, IgnoresCommentsStringsAndCallsThatMentionTheEntry) {
  KernelSignature signature = parse(R"(// extern "C" void solve(int wrong) {}
/* extern "C" void solve(double wrong) {} */
#define CALL_IT solve(nullptr, 0)
const char* text = "extern \"C\" void solve(char wrong) {}";
const char* raw = R"x(extern "C" void solve(short wrong) {})x";
void caller() { char open = '{'; int big = 1'000'000; solve(nullptr, big); }
extern "C" void solve(float* out, int n) {}
)");
  EXPECT_EQ(signature.line, 7);
  ASSERT_EQ(signature.params.size(), 2u);
  EXPECT_EQ(signature.params[0].name, "out");
}

TEST(KernelSignature, SurvivesUnterminatedLiteralsAndComments) {
  EXPECT_EQ(parse("extern \"C\" void solve(float* x) {}\nconst char* s = \"oops").params.size(), 1u);
  EXPECT_EQ(parse("extern \"C\" void solve(float* x) {}\nchar c = 'x").params.size(), 1u);
  EXPECT_EQ(parse("extern \"C\" void solve(float* x) {}\n/* never closed").params.size(), 1u);
  EXPECT_THAT(signature_error_of("extern \"C\" void solve(float* x"), HasSubstr("no extern \"C\" void solve"));
}

TEST(KernelSignature, ReadsNamesFromTheDefinitionAfterAnUnnamedPrototype) {
  KernelSignature signature = parse(R"(extern "C" void solve(const float*, float*, int);
void solve(const float* in, float* out, int n) {}
)");
  EXPECT_EQ(signature.line, 2);
  ASSERT_EQ(signature.params.size(), 3u);
  EXPECT_EQ(signature.params[1].name, "out");
}

TEST(KernelSignature, FindsTensarasSolutionAndANamedEntry) {
  EXPECT_EQ(parse("extern \"C\" void solution(const float* in, float* out, size_t n) {}").entry, "solution");
  KernelSignature custom = parse("extern \"C\" void run_me(float* x, int n) {}", "run_me");
  EXPECT_EQ(custom.entry, "run_me");
  EXPECT_EQ(custom.params.size(), 2u);
}

TEST(KernelSignature, PrefersSolveOverSolution) {
  EXPECT_EQ(parse("extern \"C\" void solution(float* x) {}\nextern \"C\" void solve(float* y) {}").entry,
            "solve");
}

TEST(KernelSignature, ReadsVoidOrEmptyParameterListsAsNoParameters) {
  EXPECT_TRUE(parse("extern \"C\" void solve(void) {}").params.empty());
  EXPECT_TRUE(parse("extern \"C\" void solve() {}").params.empty());
}

TEST(KernelSignature, RejectsUnsupportedParametersNamingFileLineAndParameter) {
  EXPECT_THAT(
      signature_error_of("extern \"C\" void solve(const float* A,\n  const float* B,\n  foo_t* X) {}"),
      HasSubstr("kernel.cu:3: cannot parse parameter 3 of solve (\"foo_t* X\"): unknown type \"foo_t\""));
  EXPECT_THAT(signature_error_of("extern \"C\" void solve(float** A) {}"),
              HasSubstr("kernel.cu:1: cannot parse parameter 1 of solve (\"float** A\"): pointers to "
                        "pointers are not supported"));
  EXPECT_THAT(signature_error_of("extern \"C\" void solve(float& x) {}"), HasSubstr("references are not supported"));
  EXPECT_THAT(signature_error_of("extern \"C\" void solve(float A[16]) {}"), HasSubstr("arrays are not supported"));
  EXPECT_THAT(signature_error_of("extern \"C\" void solve(Tensor<float> t) {}"),
              HasSubstr("templates are not supported"));
  EXPECT_THAT(signature_error_of("extern \"C\" void solve(const float*, float* out) {}"),
              HasSubstr("parameter 1 of solve (\"const float*\"): the parameter has no name"));
  EXPECT_THAT(signature_error_of("extern \"C\" void solve(float* out, unsigned int) {}"),
              HasSubstr("parameter 2 of solve"));
  EXPECT_THAT(signature_error_of("extern \"C\" void solve(void* data) {}"),
              HasSubstr("void pointers are not supported"));
  EXPECT_THAT(signature_error_of("extern \"C\" void solve(float* a, int n = 4) {}"), HasSubstr("default arguments"));
  EXPECT_THAT(signature_error_of("extern \"C\" void solve(float* a, ...) {}"), HasSubstr("variadic"));
  EXPECT_THAT(signature_error_of("extern \"C\" void solve(float* a, float* a) {}"),
              HasSubstr("parameter 2 of solve repeats the name \"a\" of parameter 1"));
  EXPECT_THAT(signature_error_of("extern \"C\" void solve(float4* a) {}"), HasSubstr("unknown type \"float4\""));
}

TEST(KernelSignature, ExplainsAMissingEntry) {
  EXPECT_EQ(signature_error_of("void solve(float* x) {}"),
            "kernel.cu: no extern \"C\" void solve(...) found (looked for solve, solution; name another with "
            "entry = \"...\" in kopt.toml)");
  EXPECT_THAT(signature_error_of("extern \"C\" void solve(float* x) {}", "launch"),
              HasSubstr("no extern \"C\" void launch(...) found (looked for launch;"));
}

TEST(KernelSignature, RejectsAnEntryThatIsNotAHostVoidFunction) {
  EXPECT_THAT(signature_error_of("extern \"C\" int solve(float* x) { return 0; }"),
              HasSubstr("kernel.cu:1: solve must return void"));
  EXPECT_THAT(signature_error_of("extern \"C\" __global__ void solve(float* x) {}"),
              HasSubstr("solve is a device function; kopt calls solve on the host"));
}

TEST(SignatureAnnotations, ReadsTunableParamsAndMethodSwitches) {
  SourceAnnotations annotations = parse_source_annotations(R"(#ifndef BM
#define BM 64            // kopt:param BM in {32,64,128}
#endif
#define  BN  32 /* tile */  // kopt:param BN in { 16, 32 }
#define KOPT_USE_SMEM_TILING 1   // kopt:method memory.tiling_smem
#define KOPT_USE_VEC4 0 // kopt:method memory.vectorized_access
#define PLAIN 3  // an ordinary comment
)",
                                                           "kernel.cu");
  ASSERT_EQ(annotations.params.size(), 2u);
  EXPECT_EQ(annotations.params[0].macro, "BM");
  EXPECT_EQ(annotations.params[0].default_value, "64");
  EXPECT_THAT(annotations.params[0].values, ::testing::ElementsAre("32", "64", "128"));
  EXPECT_EQ(annotations.params[0].line, 2);
  EXPECT_EQ(annotations.params[1].default_value, "32");
  EXPECT_THAT(annotations.params[1].values, ::testing::ElementsAre("16", "32"));
  ASSERT_EQ(annotations.methods.size(), 2u);
  EXPECT_EQ(annotations.methods[0].macro, "KOPT_USE_SMEM_TILING");
  EXPECT_EQ(annotations.methods[0].method_id, "memory.tiling_smem");
  EXPECT_TRUE(annotations.methods[0].enabled_by_default);
  EXPECT_FALSE(annotations.methods[1].enabled_by_default);
  EXPECT_EQ(annotations.methods[1].line, 6);
}

TEST(SignatureAnnotations, RejectsMalformedAnnotationsNamingTheLine) {
  auto error_of_annotations = [](std::string_view source) -> std::string {
    try {
      parse_source_annotations(source, "kernel.cu");
    } catch (const Error& error) {
      return error.what();
    }
    return "no error";
  };
  EXPECT_THAT(error_of_annotations("\nint x = 1;  // kopt:param BM in {1,2}"),
              HasSubstr("kernel.cu:2: kopt:param must follow a #define"));
  EXPECT_THAT(error_of_annotations("#define BM 64 // kopt:param BN in {1,2}"),
              HasSubstr("names \"BN\" but the #define is BM"));
  EXPECT_THAT(error_of_annotations("#define BM 64 // kopt:param BM {1,2}"),
              HasSubstr("expected \"kopt:param BM in {v1,v2,...}\""));
  EXPECT_THAT(error_of_annotations("#define BM 64 // kopt:param BM in {1,,2}"), HasSubstr("empty value"));
  EXPECT_THAT(error_of_annotations("#define BM 64 // kopt:parm BM in {1,2}"),
              HasSubstr("unknown annotation \"kopt:parm\""));
  EXPECT_THAT(error_of_annotations("#define KOPT_USE_X 2 // kopt:method memory.x"),
              HasSubstr("must default to 0 or 1"));
  EXPECT_THAT(error_of_annotations("#define KOPT_USE_X 1 // kopt:method"),
              HasSubstr("expected \"kopt:method CATALOG_ID\""));
  EXPECT_THAT(error_of_annotations(
                  "#define BM 64 // kopt:param BM in {1,2}\n#define BM 32 // kopt:param BM in {1,2}"),
              HasSubstr("kernel.cu:2: BM is annotated twice"));
}

}  // namespace
}  // namespace kopt::spec
