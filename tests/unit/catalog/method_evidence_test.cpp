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
  const auto evidence = check_methods(catalog, signatures, declared, {"memory.tiling_smem", "compute.register_tiling"},
                                      {}, naive.functions, 90);
  ASSERT_EQ(evidence.size(), 2u);
  EXPECT_EQ(evidence[1].source, "asked");
  EXPECT_EQ(evidence[1].match.status, SignatureStatus::not_verifiable);  // no opcode proves it
  EXPECT_THROW(check_methods(catalog, signatures, {}, {"memory.teleport"}, {}, naive.functions, 90), Error);
}

}  // namespace
}  // namespace kopt::catalog
