#include "kopt/spec/dtype.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "kopt/core/error.hpp"

namespace kopt::spec {
namespace {

using ::testing::HasSubstr;

std::string dtype_error_of(std::string_view toml_text) {
  try {
    parse_dtype_table(toml_text, "dtypes.toml");
  } catch (const Error& error) {
    return error.what();
  }
  return "no error";
}

constexpr std::string_view kValidEntry = R"(
schema_version = 1
[[dtype]]
name = "float32"
c_names = ["float"]
kind = "floating"
bytes = 4
numpy = "<f4"
atol = 1e-4
rtol = 0
epsilon = 1.1920929e-07
)";

TEST(DTypeTable, KnowsEveryTypeOfTheKernelContract) {
  for (std::string_view spelling :
       {"float",         "double",  "__half",   "half",         "__nv_bfloat16", "int8_t",
        "uint8_t",       "int16_t", "uint16_t", "int32_t",      "uint32_t",      "int64_t",
        "uint64_t",      "char",    "short",    "int",          "long",          "__nv_fp8_e4m3",
        "__nv_fp8_e5m2", "size_t",  "unsigned", "unsigned int", "long long",     "unsigned long"}) {
    EXPECT_NE(dtype_from_c_name(spelling), nullptr) << spelling;
  }
}

TEST(DTypeTable, MapsSpellingsToCanonicalTypes) {
  EXPECT_EQ(dtype_from_c_name("float")->name, "float32");
  EXPECT_EQ(dtype_from_c_name("half")->name, "float16");
  EXPECT_EQ(dtype_from_c_name("__nv_bfloat16")->name, "bfloat16");
  EXPECT_EQ(dtype_from_c_name("size_t")->name, "uint64");
  EXPECT_EQ(dtype_from_c_name("long long")->name, "int64");
  EXPECT_EQ(dtype_from_c_name("int")->kind, DTypeKind::signed_integer);
  EXPECT_EQ(dtype_from_c_name("unsigned")->kind, DTypeKind::unsigned_integer);
}

TEST(DTypeTable, AcceptsSpellingsWithCollapsedWhitespace) {
  EXPECT_EQ(dtype_from_c_name("unsigned  int")->name, "uint32");
  EXPECT_EQ(dtype_from_c_name(" long\tlong ")->name, "int64");
}

TEST(DTypeTable, ReturnsNullForUnknownSpellings) {
  EXPECT_EQ(dtype_from_c_name("foo_t"), nullptr);
  EXPECT_EQ(dtype_from_c_name("float4"), nullptr);
  EXPECT_EQ(dtype_named("float128"), nullptr);
}

TEST(DTypeTable, CarriesSizesAndDefaultTolerances) {
  const DType* fp32 = dtype_named("float32");
  ASSERT_NE(fp32, nullptr);
  EXPECT_EQ(fp32->bytes, 4u);
  EXPECT_DOUBLE_EQ(fp32->default_atol, 1e-4);
  EXPECT_DOUBLE_EQ(fp32->default_rtol, 1e-3);
  EXPECT_TRUE(fp32->is_floating());
  EXPECT_DOUBLE_EQ(dtype_named("float16")->default_rtol, 1e-2);
  EXPECT_EQ(dtype_named("bfloat16")->numpy_descr, "<u2");
  EXPECT_EQ(dtype_named("float8_e4m3")->bytes, 1u);
  EXPECT_EQ(dtype_named("int32")->default_atol, 0);
}

// The epsilon is what verify/input_dependence.cpp scales rounding by: each type's own, an
// integer's zero (any difference is a whole unit).
TEST(DTypeTable, CarriesEachTypesEpsilon) {
  EXPECT_DOUBLE_EQ(dtype_named("float32")->epsilon, 1.1920929e-07);
  EXPECT_DOUBLE_EQ(dtype_named("float64")->epsilon, 2.220446049250313e-16);
  EXPECT_DOUBLE_EQ(dtype_named("bfloat16")->epsilon, 0.0078125);
  EXPECT_DOUBLE_EQ(dtype_named("float16")->epsilon, 0.0009765625);
  EXPECT_EQ(dtype_named("int32")->epsilon, 0);
  EXPECT_EQ(dtype_named("uint64")->epsilon, 0);
}

// torch's name of each type (kopt export --torch checks a tensor's dtype by it): kopt's own name
// unless data/dtypes.toml says otherwise, as for torch's float8_e4m3fn.
TEST(DTypeTable, NamesEachTypeAsTorchDoes) {
  EXPECT_EQ(dtype_named("float32")->torch_name, "float32");
  EXPECT_EQ(dtype_named("bfloat16")->torch_name, "bfloat16");
  EXPECT_EQ(dtype_named("float8_e4m3")->torch_name, "float8_e4m3fn");
  EXPECT_EQ(dtype_named("float8_e5m2")->torch_name, "float8_e5m2");
  EXPECT_EQ(dtype_named("uint16")->torch_name, "uint16");
  EXPECT_EQ(parse_dtype_table(kValidEntry, "dtypes.toml")[0].torch_name, "float32");
}

TEST(DTypeTableParsing, ReadsAValidEntryWithIntegerTolerance) {
  std::vector<DType> dtypes = parse_dtype_table(kValidEntry, "dtypes.toml");
  ASSERT_EQ(dtypes.size(), 1u);
  EXPECT_EQ(dtypes[0].name, "float32");
  EXPECT_EQ(dtypes[0].default_rtol, 0);
}

TEST(DTypeTableParsing, RejectsAnEntryWithAnUnknownKindNamingFileAndEntry) {
  std::string text(kValidEntry);
  text.replace(text.find("floating"), 8, "complex");
  EXPECT_THAT(dtype_error_of(text),
              HasSubstr("dtypes.toml:3: dtype entry 1 (\"float32\"): unknown kind \"complex\""));
}

TEST(DTypeTableParsing, RejectsMissingFieldsBadSizesAndUnknownKeys) {
  std::string no_c_names(kValidEntry);
  no_c_names.replace(no_c_names.find("c_names = [\"float\"]"), 19, "");
  EXPECT_THAT(dtype_error_of(no_c_names), HasSubstr("\"c_names\" must be a non-empty array of strings"));

  std::string bad_bytes(kValidEntry);
  bad_bytes.replace(bad_bytes.find("bytes = 4"), 9, "bytes = 3");
  EXPECT_THAT(dtype_error_of(bad_bytes), HasSubstr("\"bytes\" must be 1, 2, 4 or 8"));

  EXPECT_THAT(dtype_error_of(std::string(kValidEntry) + "colour = \"red\"\n"), HasSubstr("unknown key \"colour\""));
  std::string negative_tolerance(kValidEntry);
  negative_tolerance.replace(negative_tolerance.find("atol = 1e-4"), 11, "atol = -1");
  EXPECT_THAT(dtype_error_of(negative_tolerance), HasSubstr("\"atol\" must be a number >= 0"));
}

TEST(DTypeTableParsing, RejectsASpellingUsedTwice) {
  std::string twice =
      std::string(kValidEntry) + std::string(kValidEntry.substr(kValidEntry.find("[[dtype]]")));
  twice.replace(twice.rfind("float32"), 7, "float32b");
  EXPECT_THAT(dtype_error_of(twice), HasSubstr("spelling \"float\" is already used"));
}

TEST(DTypeTableParsing, ReportsTomlSyntaxErrorsWithLineAndColumn) {
  EXPECT_THAT(dtype_error_of("schema_version = 1\n[[dtype]\n"), HasSubstr("dtypes.toml:2:"));
  EXPECT_THAT(dtype_error_of("schema_version = 2\n"), HasSubstr("\"schema_version\" must be 1"));
  EXPECT_THAT(dtype_error_of("version = 1\n"), HasSubstr("\"schema_version\" must be 1"));  // the old field name
}

}  // namespace
}  // namespace kopt::spec
