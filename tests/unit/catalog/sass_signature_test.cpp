#include "kopt/catalog/sass_signature.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>

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

TEST(OpcodePattern, AnAbsentModifierMustNotBeThere) {
  const OpcodePattern packed = OpcodePattern::parse("HADD2.!F32");
  EXPECT_TRUE(packed.matches("HADD2"));
  EXPECT_FALSE(packed.matches("HADD2.F32"));  // a half widened to float, not half2 arithmetic
  EXPECT_THROW(OpcodePattern::parse("!HADD2"), Error);
}

// Real machine code (tests/fixtures/README.md): nvcc 13 kernels with and without each method
// whose signature checks a structure or an absence, as the `sass.signatures` test compiles them.
std::map<std::string, sass::SassFunctionProfile> signature_pairs() {
  const sass::SassDump dump = sass::parse_cuobjdump_sass(
      read_file(std::string(KOPT_FIXTURES_DIR) + "/sass/cuobjdump13.5_sm90_signature_pairs.txt"));
  EXPECT_TRUE(dump.unparsed.empty());
  std::map<std::string, sass::SassFunctionProfile> by_name;
  for (const sass::SassFunctionProfile& f : sass::kernel_profile(dump).functions) by_name[f.name] = f;
  return by_name;
}

TEST(SassSignatures, EachPairIsFoundWithTheMethodAndMissingWithout) {
  const auto kernels = signature_pairs();
  const SignatureTable table = load_sass_signatures();
  int pairs = 0;
  for (const auto& [name, kernel] : kernels) {
    if (!name.starts_with("without_")) continue;
    const std::string id = name.substr(std::string("without_").size());
    ASSERT_TRUE(kernels.contains("sig_" + id)) << name;
    EXPECT_EQ(match_signature(table, id, {kernels.at("sig_" + id)}, 90).status, SignatureStatus::found) << id;
    EXPECT_EQ(match_signature(table, id, {kernel}, 90).status, SignatureStatus::missing) << id;
    ++pairs;
  }
  EXPECT_GE(pairs, 25);
}

TEST(SassSignatures, RegisterTilingIsARatioNotAnyFfma) {
  const auto kernels = signature_pairs();
  const SignatureTable table = load_sass_signatures();
  // The one-output-per-thread tile has FFMA and LDS too: only the ratio tells them apart.
  const auto& naive = kernels.at("without_register_tile");
  EXPECT_GT(naive.opcodes.at("FFMA"), 0);
  EXPECT_GT(naive.opcodes.at("LDS"), 0);
  const SignatureMatch tiled = match_signature(table, "register_tile", {kernels.at("sig_register_tile")}, 90);
  EXPECT_THAT(tiled.evidence, testing::Contains(testing::HasSubstr("FFMA ×256 per LDS+LDG ×40 (at least 2)")));
  const SignatureMatch missing = match_signature(table, "register_tile", {naive}, 90);
  EXPECT_THAT(missing.reason, testing::HasSubstr("FFMA at least 2 per LDS+LDG"));
}

TEST(SassSignatures, SharedAndAsyncCopyWidthsCountAsVectorAccess) {
  const auto kernels = signature_pairs();
  const SignatureTable table = load_sass_signatures();
  // Only 32-bit global accesses here: the vector widths are LDS.128 and a 16-byte LDGSTS.
  const auto& shared = kernels.at("sig_vector_access_128__shared");
  EXPECT_FALSE(shared.global_load_bits.contains(128));
  EXPECT_EQ(shared.shared_load_bits.at(128), 1);  // the profile counts the widths too
  EXPECT_EQ(shared.async_copy_bits.at(128), 1);
  const SignatureMatch match = match_signature(table, "vector_access_128", {shared}, 90);
  EXPECT_EQ(match.status, SignatureStatus::found);
  EXPECT_THAT(match.evidence, testing::Contains(testing::HasSubstr("LDGSTS.E.BYPASS.128")));
  EXPECT_THAT(match.evidence, testing::Contains(testing::HasSubstr("LDS.128")));
}

TEST(SassSignatures, ConstantMemoryIsSeenInTheOperands) {
  const auto kernels = signature_pairs();
  const SignatureTable table = load_sass_signatures();
  // __constant__ weights are read as c[0x3][...] operands; weights passed by pointer are LDGs,
  // and the pointer itself is a kernel parameter in bank 0, not 3.
  const auto& with = kernels.at("sig_user_constant_operands");
  const auto& without = kernels.at("without_user_constant_operands");
  EXPECT_GT(with.constant_bank_reads.at(3), 0);
  EXPECT_FALSE(without.constant_bank_reads.contains(3));
  EXPECT_GT(without.constant_bank_reads.at(0), 0);
  EXPECT_THAT(match_signature(table, "user_constant_operands", {with}, 90).evidence,
              testing::Contains(testing::HasSubstr("read constant bank 3")));
}

TEST(SassSignatures, AnAbsenceIsFoundOnlyWithSomethingElseThere) {
  const SignatureTable table = load_sass_signatures();
  // fp32_not_fp64: FP32 math and no DFMA; a function with neither proves nothing.
  EXPECT_EQ(match_signature(table, "fp32_not_fp64", {function_with("k", {"LDG.E", "STG.E"})}, 90).status,
            SignatureStatus::missing);
  EXPECT_EQ(match_signature(table, "fp32_not_fp64", {function_with("k", {"FFMA", "DFMA"})}, 90).status,
            SignatureStatus::missing);
  const SignatureMatch fp32 = match_signature(table, "fp32_not_fp64", {function_with("k", {"FFMA"})}, 90);
  EXPECT_EQ(fp32.status, SignatureStatus::found);
  EXPECT_THAT(fp32.evidence, testing::Contains("k: no DFMA, no DMUL, no DADD"));
}

TEST(SassSignatures, ASharedTraceIsNotDistinguishableAndItsAbsenceStillMissing) {
  const SignatureTable table = load_sass_signatures();
  const SignatureMatch there =
      match_shared_trace(table, "shared_memory", "memory.tiling_smem", {function_with("k", {"LDS", "STS"})}, 90);
  EXPECT_EQ(there.status, SignatureStatus::not_distinguishable);
  EXPECT_THAT(there.reason, testing::HasSubstr("memory.tiling_smem"));
  EXPECT_EQ(to_string(there.status), "not_distinguishable");
  EXPECT_EQ(match_shared_trace(table, "shared_memory", "memory.tiling_smem", {function_with("k", {"LDG.E"})}, 90).status,
            SignatureStatus::missing);
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
  EXPECT_THAT(message("[x]\ndescription = \"d\"\nsm_90 = { ratio = { of = [\"FFMA\"], at_least = 2 } }\n"),
              testing::HasSubstr("x.sm_90.ratio: a ratio needs `of` and `to`"));
  EXPECT_THAT(message("[x]\ndescription = \"d\"\nsm_90 = { ratio = { of = [\"FFMA\"], to = [\"LDS\"], at_least = 0 } }\n"),
              testing::HasSubstr("above 0"));
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
