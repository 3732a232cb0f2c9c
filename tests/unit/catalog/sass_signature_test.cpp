#include "kopt/catalog/sass_signature.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "kopt/core/error.hpp"
#include "kopt/core/files.hpp"
#include "kopt/sass/disassembler.hpp"

namespace kopt::catalog {
namespace {

sass::SassFunctionProfile function_with(std::string name, std::vector<std::string> opcodes) {
  sass::SassFunctionProfile f{.name = std::move(name)};
  for (const std::string& opcode : opcodes) ++f.opcodes_with_modifiers[opcode];
  return f;
}

TEST(OpcodePattern, ModifiersAreASubsetInAnyOrder) {
  const OpcodePattern p = OpcodePattern::parse("LDG.CONSTANT");
  EXPECT_TRUE(p.matches("LDG.E.CONSTANT"));
  EXPECT_TRUE(p.matches("LDG.E.128.CONSTANT"));
  EXPECT_FALSE(p.matches("LDG.E.128"));
  EXPECT_FALSE(p.matches("LDGSTS.E"));
  EXPECT_TRUE(OpcodePattern::parse("HGMMA").matches("HGMMA.64x16x16.F32"));
  EXPECT_THROW(OpcodePattern::parse("ldg.e"), Error);
  EXPECT_THROW(OpcodePattern::parse("LDG..E"), Error);
}

TEST(SassSignatures, TheShippedTableLoadsAndNamesEveryArchitecture) {
  const SignatureTable table = load_sass_signatures();
  EXPECT_GE(table.signatures.size(), 25u);
  EXPECT_NE(table.find("wgmma")->for_arch(90), nullptr);
  EXPECT_EQ(table.find("wgmma")->for_arch(80), nullptr);
  EXPECT_NE(table.find("ldg_readonly")->for_arch(100), nullptr);  // falls back to sm_90's table
}

TEST(SassSignatures, MatchesOpcodesOfFunctionsNeverTheirNames) {
  const SignatureTable table = load_sass_signatures();
  // A function named after a reduction holds no RED instruction.
  std::vector<sass::SassFunctionProfile> plain = {function_with("reduce_red_kernel", {"LDG.E", "FADD", "STG.E"})};
  EXPECT_EQ(match_signature(table, "global_atomic", plain, 90).status, SignatureStatus::missing);
  std::vector<sass::SassFunctionProfile> atomic = {function_with("k", {"REDG.E.ADD.F32.FTZ.RN.STRONG.GPU"})};
  SignatureMatch found = match_signature(table, "global_atomic", atomic, 90);
  EXPECT_EQ(found.status, SignatureStatus::found);
  EXPECT_THAT(found.evidence, testing::ElementsAre("k: REDG.E.ADD.F32.FTZ.RN.STRONG.GPU ×1"));
}

TEST(SassSignatures, NoneIsNotVerifiableAndAnUnknownIdIsAnError) {
  const SignatureTable table = load_sass_signatures();
  EXPECT_EQ(match_signature(table, "none", {}, 90).status, SignatureStatus::not_verifiable);
  EXPECT_EQ(match_signature(table, "wgmma", {}, 80).status, SignatureStatus::not_verifiable);
  EXPECT_THROW(match_signature(table, "no_such_signature", {}, 90), Error);
}

TEST(SassSignatures, AllNeedsEveryPattern) {
  const SignatureTable table = load_sass_signatures();
  EXPECT_EQ(match_signature(table, "cluster_barrier", {function_with("k", {"UCGABAR_ARV"})}, 90).status,
            SignatureStatus::missing);
  EXPECT_EQ(match_signature(table, "cluster_barrier", {function_with("k", {"UCGABAR_ARV", "UCGABAR_WAIT"})}, 90).status,
            SignatureStatus::found);
}

TEST(SassSignatures, TheNaiveSgemmDumpHasNoSharedMemoryTiling) {
  const sass::SassDump dump = sass::parse_cuobjdump_sass(
      read_file(std::string(KOPT_FIXTURES_DIR) + "/sass/cuobjdump13.0_sm90_sgemm_naive.txt"));
  const sass::SassProfile profile = sass::kernel_profile(dump);
  const SignatureTable table = load_sass_signatures();
  EXPECT_EQ(match_signature(table, "shared_memory", profile.functions, 90).status, SignatureStatus::missing);
  EXPECT_EQ(match_signature(table, "mma_sync", profile.functions, 90).status, SignatureStatus::missing);
}

TEST(SassSignatures, MalformedEntriesNameTheFileAndTheEntry) {
  auto message = [](std::string_view text) {
    try {
      parse_sass_signatures("schema_version = 1\n" + std::string(text), "sigs.toml");
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_THAT(message("[x]\ndescription = \"d\"\nsm_90 = { any = [\"ldg\"] }\n"), testing::HasSubstr("sigs.toml:4: x.sm_90:"));
  EXPECT_THAT(message("[x]\ndescription = \"d\"\nsm_90 = { most = [\"LDG\"] }\n"), testing::HasSubstr("unknown key \"most\""));
  EXPECT_THAT(message("[x]\ndescription = \"d\"\n"), testing::HasSubstr("x: lists no architecture"));
  EXPECT_THAT(message("[none]\ndescription = \"d\"\n"), testing::HasSubstr("reserved"));
  EXPECT_THAT(message("[x]\nsm_90 = { any = [\"LDG\"] }\n"), testing::HasSubstr("x: description is required"));
  // Read as every data file is: without its schema_version it is refused.
  EXPECT_THROW(parse_sass_signatures("[x]\ndescription = \"d\"\nsm_90 = { any = [\"LDG\"] }\n", "sigs.toml"), Error);
}

TEST(ArchNumber, ReadsTheComputeCapability) {
  EXPECT_EQ(arch_number("sm_90"), 90);
  EXPECT_EQ(arch_number("sm_90a"), 90);
  EXPECT_EQ(arch_number("sm_100a"), 100);
  EXPECT_THROW(arch_number("hopper"), Error);
  EXPECT_THROW(arch_number("90"), Error);
}

}  // namespace
}  // namespace kopt::catalog
