#include "kopt/spec/precision.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "kopt/spec/problem_spec.hpp"
#include "spec_test_support.hpp"

namespace kopt::spec {
namespace {

using ::testing::HasSubstr;

constexpr std::string_view kSpec = "kernel = \"k.cu\"\n[dims]\nN = 8\n";

const PrecisionPolicy& policy_of(std::string_view toml, std::string_view kernel) {
  return *bind_problem(parse_text(toml), signature_of(kernel)).precision;
}

TEST(PrecisionTable, EveryDtypeHasExactlyOneDefaultPolicy) {
  for (const DType& dtype : all_dtypes()) {
    const auto lists = [&](const PrecisionPolicy& p) {
      return std::ranges::find(p.default_for, &dtype) != p.default_for.end();
    };
    EXPECT_EQ(std::ranges::count_if(all_precisions(), lists), 1) << dtype.name;
  }
  EXPECT_THAT(precision_named("tf32").compute, ::testing::ElementsAre("fp32", "tf32_tensor"));
}

TEST(PrecisionTable, AnUnknownNameListsTheKnownOnes) {
  const std::string error = error_of([] { precision_named("bf17"); });
  EXPECT_THAT(error, HasSubstr("unknown precision \"bf17\""));
  EXPECT_THAT(error, HasSubstr("fp32, tf32, fp16, bf16"));
}

TEST(PrecisionTable, AMalformedTableIsRefusedNamingTheEntry) {
  const auto parse = [](std::string_view text) { return error_of([&] { parse_precision_table(text, "p.toml"); }); };
  EXPECT_THAT(parse("schema_version = 1\n[[precision]]\nname = \"x\"\nwhat = \"y\"\ncompute = [\"fp32\"]\ncolour = 1\n"),
              HasSubstr("p.toml:2: precision entry 1 (\"x\")"));
  EXPECT_THAT(parse("schema_version = 1\n[[precision]]\nname = \"x\"\nwhat = \"y\"\ncompute = []\ndefault_for = []\n"),
              HasSubstr("\"compute\" must be a non-empty array"));
  EXPECT_THAT(parse("schema_version = 1\n[[precision]]\nname = \"x\"\nwhat = \"y\"\ncompute = [\"fp32\"]\n"
                    "default_for = [\"float33\"]\n"),
              HasSubstr("\"float33\" is not a dtype"));
  // A table that leaves a dtype without a default policy would leave its problems without one.
  EXPECT_THAT(parse("schema_version = 1\n[[precision]]\nname = \"x\"\nwhat = \"y\"\ncompute = [\"fp32\"]\n"
                    "default_for = [\"float32\"]\n"),
              HasSubstr("dtype \"float64\" is in the default_for of 0 precisions"));
}

// The narrowest floating buffer decides, inputs included: a BF16 GEMM writing FP32 is a BF16
// problem (held to the BF16 tensor rate), not an FP32 one.
TEST(DefaultPrecision, TheNarrowestFloatingBufferDecides) {
  EXPECT_EQ(policy_of(kSpec, "extern \"C\" void solve(const float* x, float* y, int N) {}").name, "fp32");
  EXPECT_EQ(policy_of(kSpec, "extern \"C\" void solve(const double* x, double* y, int N) {}").name, "fp64");
  EXPECT_EQ(policy_of(kSpec, "extern \"C\" void solve(const __nv_bfloat16* a, const __nv_bfloat16* b, float* c, int N) {}")
                .name,
            "bf16");
  EXPECT_EQ(policy_of(kSpec, "extern \"C\" void solve(const __half* a, const __nv_bfloat16* b, float* c, int N) {}").name,
            "fp16");  // equal widths: the first
  EXPECT_EQ(policy_of(kSpec, "extern \"C\" void solve(const int* keys, const float* x, float* y, int N) {}").name,
            "fp32");  // integer buffers do not decide beside floating ones
  EXPECT_EQ(policy_of(kSpec, "extern \"C\" void solve(const int* x, int* histogram, int N) {}").name, "integer");
}

TEST(SpecPrecision, TheSpecNamesItAndAllowTf32IsTf32) {
  const std::string_view kernel = "extern \"C\" void solve(const float* x, float* y, int N) {}";
  EXPECT_EQ(policy_of(std::string(kSpec) + "", kernel).name, "fp32");
  EXPECT_EQ(parse_text("precision = \"bf16\"\nkernel = \"k.cu\"\n").precision, "bf16");
  EXPECT_EQ(policy_of("precision = \"tf32\"\nkernel = \"k.cu\"\n[dims]\nN = 8\n", kernel).name, "tf32");
  EXPECT_EQ(policy_of("allow_tf32 = true\nkernel = \"k.cu\"\n[dims]\nN = 8\n", kernel).name, "tf32");
  EXPECT_EQ(policy_of("allow_tf32 = false\nkernel = \"k.cu\"\n[dims]\nN = 8\n", kernel).name, "fp32");
  EXPECT_EQ(parse_text("allow_tf32 = true\nprecision = \"tf32\"\nkernel = \"k.cu\"\n").precision, "tf32");
}

TEST(SpecPrecision, AnUnknownOrContradictoryPrecisionIsOneLineWithItsLine) {
  EXPECT_THAT(spec_error("kernel = \"k.cu\"\nprecision = \"fp33\"\n"),
              HasSubstr("kopt.toml:2: unknown precision \"fp33\" (known: fp64, fp32"));
  EXPECT_THAT(spec_error("kernel = \"k.cu\"\nprecision = 32\n"), HasSubstr("kopt.toml:2:"));
  EXPECT_THAT(spec_error("precision = \"bf16\"\nallow_tf32 = true\nkernel = \"k.cu\"\n"),
              HasSubstr("kopt.toml:2: allow_tf32 = true is precision = \"tf32\", and precision says \"bf16\": give one"));
}

// An FP32 output computed from TF32 products is held no tighter than FP16's default (the same
// 10-bit mantissa); a spec's own tolerance still wins.
TEST(PrecisionTolerance, ThePolicyRaisesTheDefaultToleranceOfFloatingOutputs) {
  const std::string_view kernel = "extern \"C\" void solve(const float* x, float* y, int N) {}";
  const DType& float32 = *dtype_named("float32");
  const DType& float16 = *dtype_named("float16");
  EXPECT_EQ(default_atol_rtol(float32, precision_named("fp32")), std::pair(float32.default_atol, float32.default_rtol));
  EXPECT_EQ(default_atol_rtol(float32, precision_named("tf32")), std::pair(float16.default_atol, float16.default_rtol));
  EXPECT_EQ(default_atol_rtol(float16, precision_named("bf16")), std::pair(float16.default_atol, float16.default_rtol));

  const Problem tf32 = bind_problem(parse_text("precision = \"tf32\"\nkernel = \"k.cu\"\n[dims]\nN = 8\n"),
                                    signature_of(kernel));
  EXPECT_DOUBLE_EQ(buffer(tf32.cases[0], 1).tolerance.rtol, float16.default_rtol);
  const Problem own = bind_problem(
      parse_text("precision = \"tf32\"\nkernel = \"k.cu\"\n[dims]\nN = 8\n[tolerance]\nrtol = 1e-5\natol = 1e-6\n"),
      signature_of(kernel));
  EXPECT_DOUBLE_EQ(buffer(own.cases[0], 1).tolerance.rtol, 1e-5);
}

}  // namespace
}  // namespace kopt::spec
