#include "kopt/catalog/method_evidence.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "kopt/core/error.hpp"
#include "kopt/core/files.hpp"
#include "kopt/sass/disassembler.hpp"

namespace kopt::catalog {
namespace {

using ::testing::HasSubstr;

// The naive SGEMM (a real cuobjdump 13 dump for sm_90): global loads and FFMAs, no shared memory.
class MethodEvidenceTest : public ::testing::Test {
 protected:
  MethodCatalog catalog = load_method_catalog();
  SignatureTable signatures = load_sass_signatures();
  sass::SassProfile naive = sass::kernel_profile(sass::parse_cuobjdump_sass(
      read_file(std::string(KOPT_FIXTURES_DIR) + "/sass/cuobjdump13.0_sm90_sgemm_naive.txt")));
};

TEST_F(MethodEvidenceTest, AClaimedMethodAbsentFromTheCodeIsMissing) {
  const std::vector<spec::MethodSwitch> declared = {{.macro = "KOPT_USE_SMEM_TILING", .method_id = "memory.tiling_smem"}};
  const auto evidence = check_methods(catalog, signatures, declared, {}, {}, naive.functions, 90);
  ASSERT_EQ(evidence.size(), 1u);
  EXPECT_TRUE(evidence[0].switched_on);
  EXPECT_EQ(evidence[0].source, "declared");
  EXPECT_EQ(evidence[0].match.status, SignatureStatus::missing);
}

TEST_F(MethodEvidenceTest, AMethodSwitchedOffByADefineIsNotCalledMissing) {
  const std::vector<spec::MethodSwitch> declared = {{.macro = "KOPT_USE_SMEM_TILING", .method_id = "memory.tiling_smem"}};
  const auto evidence =
      check_methods(catalog, signatures, declared, {}, {{"KOPT_USE_SMEM_TILING", "0"}}, naive.functions, 90);
  EXPECT_FALSE(evidence[0].switched_on);
  EXPECT_EQ(evidence[0].match.status, SignatureStatus::not_verifiable);
  EXPECT_THAT(evidence[0].match.reason, HasSubstr("KOPT_USE_SMEM_TILING is 0"));
}

TEST_F(MethodEvidenceTest, AskedMethodsAreAddedOnceAndUnknownOnesRefused) {
  const std::vector<spec::MethodSwitch> declared = {{.macro = "KOPT_USE_SMEM_TILING", .method_id = "memory.tiling_smem"}};
  const auto evidence = check_methods(catalog, signatures, declared, {"memory.tiling_smem", "memory.smem_padding"},
                                      {}, naive.functions, 90);
  ASSERT_EQ(evidence.size(), 2u);
  EXPECT_EQ(evidence[1].source, "asked");
  EXPECT_EQ(evidence[1].match.status, SignatureStatus::not_verifiable);  // no opcode proves it
  EXPECT_THROW(check_methods(catalog, signatures, {}, {"memory.teleport"}, {}, naive.functions, 90), Error);
}

// Register tiling has a structural signature now (FFMA per load): the naive SGEMM, one output
// per thread from global memory, is told to lack it rather than "not verifiable".
TEST_F(MethodEvidenceTest, RegisterTilingIsCheckedByItsFmaPerLoadRatio) {
  const auto evidence = check_methods(catalog, signatures, {}, {"compute.register_tiling"}, {}, naive.functions, 90);
  ASSERT_EQ(evidence.size(), 1u);
  EXPECT_EQ(evidence[0].match.status, SignatureStatus::missing);
  EXPECT_THAT(evidence[0].match.reason, HasSubstr("FFMA at least 2 per LDS+LDG"));
}

// A method whose trace is another's is not distinguishable where the trace is, and missing
// where it is not: the naive SGEMM has no shared memory for a transpose to hide in.
TEST_F(MethodEvidenceTest, ASharedTraceIsReportedAsNotDistinguishable) {
  const auto evidence = check_methods(catalog, signatures, {}, {"memory.smem_transpose"}, {}, naive.functions, 90);
  ASSERT_EQ(evidence.size(), 1u);
  EXPECT_EQ(evidence[0].match.status, SignatureStatus::missing);
  sass::SassFunctionProfile tiled{.name = "tiled"};
  tiled.opcodes_with_modifiers = {{"LDS.128", 8}, {"STS", 2}, {"FFMA", 64}};
  const auto shared = check_methods(catalog, signatures, {}, {"memory.smem_transpose"}, {}, {tiled}, 90);
  EXPECT_EQ(shared[0].match.status, SignatureStatus::not_distinguishable);
  EXPECT_THAT(shared[0].match.reason, HasSubstr("memory.tiling_smem"));
}

}  // namespace
}  // namespace kopt::catalog
