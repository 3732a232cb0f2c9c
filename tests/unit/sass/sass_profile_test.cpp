#include "kopt/sass/sass_profile.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "kopt/core/files.hpp"

namespace kopt::sass {
namespace {

SassProfile sgemm_profile() {
  const std::string path = std::string(KOPT_FIXTURES_DIR) + "/sass/cuobjdump13.0_sm90_sgemm_naive.txt";
  return profile_dump(parse_cuobjdump_sass(read_file(path)));
}

std::string function_dump(const std::string& name, const std::string& code) {
  return "\tcode for sm_90\n\t\tFunction : " + name + "\n" + code + "\t\t..........\n";
}

// Counts taken by hand from the captured dump (cuobjdump 13.0.85, sm_90).
TEST(SassProfile, CountsTheRealSgemmKernel) {
  const SassProfile profile = sgemm_profile();
  EXPECT_EQ(profile.unparsed_line_count, 0);
  const SassFunctionProfile* kernel = profile.find("_Z18sgemm_naive_kernelPKfS0_Pfiii");
  ASSERT_NE(kernel, nullptr);
  EXPECT_EQ(kernel->padding_count, 13);  // BRA 0x1030 to itself and 12 NOPs
  EXPECT_EQ(kernel->instruction_count, 0x1100 / 16 - 13);
  EXPECT_EQ(kernel->opcodes.at("FFMA"), 29);
  EXPECT_EQ(kernel->opcodes.at("LDG"), 58);
  EXPECT_EQ(kernel->opcodes_with_modifiers.at("LDG.E"), 58);
  EXPECT_EQ(kernel->opcodes.count("NOP"), 0u);
  EXPECT_EQ(kernel->global_load_bits, (WidthHistogram{{32, 58}}));
  EXPECT_EQ(kernel->global_store_bits, (WidthHistogram{{32, 1}}));
  EXPECT_TRUE(kernel->shared_memory.empty());
  EXPECT_TRUE(kernel->tensor.empty());
}

TEST(SassProfile, KeepsTheShimApartFromTheKernel) {
  const SassProfile profile = sgemm_profile();
  ASSERT_EQ(profile.functions.size(), 2u);
  const SassFunctionProfile* shim = profile.find("_Z28kopt_shim_clock_probe_kernelPyx");
  ASSERT_NE(shim, nullptr);
  EXPECT_EQ(shim->instruction_count, 24);
  EXPECT_EQ(shim->global_store_bits, (WidthHistogram{{64, 2}}));
  EXPECT_EQ(shim->opcodes.count("FFMA"), 0u);
}

// The reason matching is on parsed opcodes: the dump's text holds "RED" (in a function name)
// although no RED instruction is in it.
TEST(SassProfile, AFunctionNameIsNeverAnOpcode) {
  const std::string text =
      function_dump("_Z17reduce_RED_kernelPfS_",
                    "        /*0000*/                   LDG.E R0, desc[UR4][R2.64] ;\n"
                    "        /*0010*/                   STG.E desc[UR4][R4.64], R0 ;\n") +
      function_dump("_Z6atomicPf", "        /*0000*/                   RED.E.ADD.F32.FTZ.RN.STRONG.GPU desc[UR4][R2.64], R0 ;\n");
  ASSERT_NE(text.find("RED"), std::string::npos);
  const SassProfile profile = profile_dump(parse_cuobjdump_sass(text));
  ASSERT_EQ(profile.unparsed_line_count, 0);
  EXPECT_EQ(profile.find("_Z17reduce_RED_kernelPfS_")->opcodes.count("RED"), 0u);
  EXPECT_EQ(profile.find("_Z6atomicPf")->opcodes.at("RED"), 1);
}

TEST(SassProfile, ReadsAccessWidthsFromModifiers) {
  const SassDump dump = parse_cuobjdump_sass(function_dump(
      "k", "        /*0000*/                   LDG.E.128.CONSTANT R4, desc[UR4][R2.64] ;\n"
           "        /*0010*/                   LDG.E.U8 R8, desc[UR4][R2.64] ;\n"
           "        /*0020*/                   LDG.E.64.EF R10, desc[UR4][R2.64] ;\n"
           "        /*0030*/                   LDG.E.LTC128B R12, desc[UR4][R2.64] ;\n"
           "        /*0040*/                   STG.E.S16 desc[UR4][R2.64], R4 ;\n"
           "        /*0050*/                   LDS.128 R4, [R0] ;\n"
           "        /*0060*/                   STS [R0], R4 ;\n"));
  const SassFunctionProfile profile = profile_function(dump.functions.at(0));
  EXPECT_EQ(profile.global_load_bits, (WidthHistogram{{8, 1}, {32, 1}, {64, 1}, {128, 1}}));
  EXPECT_EQ(profile.global_store_bits, (WidthHistogram{{16, 1}}));
  EXPECT_EQ(profile.shared_memory, (OpcodeHistogram{{"LDS.128", 1}, {"STS", 1}}));
  EXPECT_EQ(profile.padding_count, 0);
}

TEST(SassProfile, DiffListsEveryOpcodeOfEitherSide) {
  const std::vector<HistogramDelta> rows = diff({{"FFMA", 29}, {"LDG", 58}}, {{"FFMA", 29}, {"LDS", 16}});
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].opcode, "FFMA");
  EXPECT_EQ(rows[0].delta, 0);
  EXPECT_EQ(rows[1].opcode, "LDG");
  EXPECT_EQ(rows[1].count_a, 58);
  EXPECT_EQ(rows[1].count_b, 0);
  EXPECT_EQ(rows[1].delta, -58);
  EXPECT_EQ(rows[2].opcode, "LDS");
  EXPECT_EQ(rows[2].delta, 16);
  EXPECT_EQ(nlohmann::json(rows[2]), nlohmann::json({{"opcode", "LDS"}, {"count_a", 0}, {"count_b", 16}, {"delta", 16}}));
}

TEST(SassProfile, RoundTripsThroughJson) {
  const SassProfile profile = sgemm_profile();
  const nlohmann::json json = profile;
  EXPECT_EQ(json.at("functions").at(0).at("global_load_bits"), nlohmann::json({{"32", 58}}));
  const SassProfile back = json.get<SassProfile>();
  ASSERT_EQ(back.functions.size(), 2u);
  EXPECT_EQ(back.functions[0].opcodes, profile.functions[0].opcodes);
  EXPECT_EQ(back.functions[0].global_load_bits, profile.functions[0].global_load_bits);
  EXPECT_EQ(nlohmann::json(back), json);
}

}  // namespace
}  // namespace kopt::sass
