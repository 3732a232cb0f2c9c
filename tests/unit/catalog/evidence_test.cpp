#include "kopt/catalog/evidence.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "kopt/core/error.hpp"
#include "kopt/core/files.hpp"

namespace kopt::catalog {
namespace {

TEST(CatalogDtype, SpecNamesBecomeTheCatalogs) {
  EXPECT_EQ(catalog_dtype("float32"), "fp32");
  EXPECT_EQ(catalog_dtype("float16"), "fp16");
  EXPECT_EQ(catalog_dtype("bfloat16"), "bf16");
  EXPECT_EQ(catalog_dtype("float64"), "fp64");
  EXPECT_EQ(catalog_dtype("float8_e4m3"), "fp8");
  EXPECT_EQ(catalog_dtype("int8"), "int8");
}

// profile.json names the kernel's dtype, so that kopt plan holds a half-precision kernel to
// half-precision methods without being told.
TEST(ParseProfileJson, ReadsTheDtypeInTheCatalogsWords) {
  nlohmann::json document = nlohmann::json::parse(
      read_file(std::string(KOPT_FIXTURES_DIR) + "/evidence/h200_vector_add/profile.json"));
  EXPECT_EQ(parse_profile_json(document, "profile.json").dtype, "");  // written before the field existed
  document["dtype"] = "bfloat16";
  const ProfileEvidence evidence = parse_profile_json(document, "profile.json");
  EXPECT_EQ(evidence.dtype, "bf16");
  EXPECT_EQ(evidence.arch, "sm_90");
  EXPECT_FALSE(evidence.concepts.empty());
}

TEST(ParseProfileJson, AWrongSchemaIsRefusedNamingTheFile) {
  try {
    parse_profile_json(nlohmann::json{{"schema", "kopt.bench/1"}}, "x/profile.json");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("x/profile.json"));
  }
}

}  // namespace
}  // namespace kopt::catalog
