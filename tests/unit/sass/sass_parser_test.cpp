#include "kopt/sass/sass_parser.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "kopt/core/files.hpp"

namespace kopt::sass {
namespace {

const char* const kSgemmKernel = "_Z18sgemm_naive_kernelPKfS0_Pfiii";
const char* const kClockShim = "_Z28kopt_shim_clock_probe_kernelPyx";

std::string fixture(const std::string& name) { return read_file(std::string(KOPT_FIXTURES_DIR) + "/sass/" + name); }

SassDump sgemm_dump() { return parse_cuobjdump_sass(fixture("cuobjdump13.0_sm90_sgemm_naive.txt")); }

bool contains_opcode(const SassFunction& function, std::string_view opcode) {
  for (const Instruction& instruction : function.instructions) {
    if (instruction.opcode == opcode) return true;
  }
  return false;
}

// Wraps instruction lines (address column onward) into a one-function sm_90 dump.
std::string one_function_dump(const std::string& name, const std::string& code) {
  return "\n\tcode for sm_90\n\t.target\tsm_90\n\n\t\tFunction : " + name +
         "\n\t.headerflags\t@\"EF_CUDA_SM90 EF_CUDA_VIRTUAL_SM(EF_CUDA_SM90)\"\n" + code + "\t\t..........\n";
}

// Captured from cuobjdump 13.0.85 on kopt's build of examples/sgemm_naive for sm_90: three
// ELF images, one empty, one with the kernel, one with kopt's clock-probe shim.
TEST(SassParser, ReadsEveryLineOfARealSm90Dump) {
  const SassDump dump = sgemm_dump();
  EXPECT_TRUE(dump.unparsed.empty()) << dump.unparsed.front().line_number << ": " << dump.unparsed.front().text;
  ASSERT_EQ(dump.functions.size(), 2u);
}

TEST(SassParser, FindsTheKernelAndTheShimAsSeparateFunctions) {
  const SassDump dump = sgemm_dump();
  const SassFunction* kernel = dump.find(kSgemmKernel);
  const SassFunction* shim = dump.find(kClockShim);
  ASSERT_NE(kernel, nullptr);
  ASSERT_NE(shim, nullptr);
  EXPECT_EQ(kernel->arch, "sm_90");
  EXPECT_TRUE(contains_opcode(*kernel, "FFMA"));
  EXPECT_TRUE(contains_opcode(*kernel, "LDG"));
  EXPECT_FALSE(contains_opcode(*shim, "FFMA"));
  EXPECT_TRUE(contains_opcode(*shim, "CS2R"));
  // 0x0000..0x10f0 in steps of 16 bytes; the encoding lines are not instructions.
  EXPECT_EQ(kernel->instructions.size(), 0x1100u / 16);
  EXPECT_EQ(kernel->instructions.back().address, 0x10f0u);
}

TEST(SassParser, SplitsAnInstructionIntoItsParts) {
  const SassDump dump = sgemm_dump();
  const Instruction& first = dump.find(kSgemmKernel)->instructions.front();
  EXPECT_EQ(first.address, 0u);
  EXPECT_FALSE(first.predicate.has_value());
  EXPECT_EQ(first.opcode, "LDC");
  EXPECT_TRUE(first.modifiers.empty());
  EXPECT_EQ(first.operands, (std::vector<std::string>{"R1", "c[0x0][0x28]"}));
  EXPECT_EQ(first.raw, "/*0000*/                   LDC R1, c[0x0][0x28] ;");
  EXPECT_EQ(first.line_number, 27);  // the dump opens with an empty line
}

TEST(SassParser, ReadsPredicates) {
  const SassDump dump = parse_cuobjdump_sass(one_function_dump(
      "k", "        /*0000*/               @P0 EXIT ;\n"
           "        /*0010*/              @!PT LDS RZ, [RZ] ;\n"
           "        /*0020*/             @!UP1 BRA 0x40 ;\n"
           "        /*0030*/                   NOP;\n"));
  ASSERT_TRUE(dump.unparsed.empty());
  const auto& code = dump.functions.at(0).instructions;
  ASSERT_EQ(code.size(), 4u);
  EXPECT_EQ(code[0].predicate->reg, "P0");
  EXPECT_FALSE(code[0].predicate->negated);
  EXPECT_EQ(code[1].predicate->reg, "PT");
  EXPECT_TRUE(code[1].predicate->negated);
  EXPECT_EQ(code[2].predicate->reg, "UP1");
  EXPECT_EQ(code[2].operands, std::vector<std::string>{"0x40"});
  EXPECT_EQ(code[3].opcode, "NOP");
  EXPECT_TRUE(code[3].operands.empty());
}

TEST(SassParser, SplitsModifiersAndKeepsBracketedOperandsWhole) {
  const SassDump dump = parse_cuobjdump_sass(one_function_dump(
      "k", "        /*0000*/                   LDG.E.128.CONSTANT R4, desc[UR4][R2.64+0x10] ;  /* 0x0000100402047981 */\n"
           "                                                                              /* 0x000ea2000c1e9d00 */\n"));
  ASSERT_TRUE(dump.unparsed.empty());
  const Instruction& load = dump.functions.at(0).instructions.at(0);
  EXPECT_EQ(load.opcode, "LDG");
  EXPECT_EQ(load.modifiers, (std::vector<std::string>{"E", "128", "CONSTANT"}));
  EXPECT_EQ(load.full_opcode(), "LDG.E.128.CONSTANT");
  EXPECT_TRUE(load.has_modifier("CONSTANT"));
  EXPECT_EQ(load.operands, (std::vector<std::string>{"R4", "desc[UR4][R2.64+0x10]"}));
}

TEST(SassParser, ReportsLinesItCannotReadWithTheirNumbers) {
  const std::string text = "\t\t        /*0000*/                   EXIT ;\n" +  // before any function
                           one_function_dump("k",
                                             "        /*0000*/               @Q0 EXIT ;\n"   // no such predicate
                                             "        /*0010*/                   exit ;\n"   // not a mnemonic
                                             "        /*zz*/                     EXIT ;\n"   // bad address
                                             "        something else entirely\n"
                                             "        /*0020*/                   EXIT ;\n");
  const SassDump dump = parse_cuobjdump_sass(text);
  ASSERT_EQ(dump.functions.size(), 1u);
  ASSERT_EQ(dump.functions[0].instructions.size(), 1u);
  EXPECT_EQ(dump.functions[0].instructions[0].address, 0x20u);
  ASSERT_EQ(dump.unparsed.size(), 5u);
  EXPECT_EQ(dump.unparsed[0].line_number, 1);
  EXPECT_EQ(dump.unparsed[1].line_number, 8);
  EXPECT_EQ(dump.unparsed[4].text, "        something else entirely");
}

// Hand-written in the sm_5x/sm_6x layout (one 64-bit encoding per line, a control word every
// fourth line, dual-issue pairs in braces): the braces are scheduling, not part of the opcode.
TEST(SassParser, ReadsDualIssueBraces) {
  const SassDump dump = parse_cuobjdump_sass(
      "\tcode for sm_52\n\t\tFunction : pair\n"
      "                                                                                  /* 0x001c4400fe0007f6 */\n"
      "        /*0008*/                   MOV R1, c[0x0][0x20] ;                         /* 0x4c98078000870001 */\n"
      "        /*0010*/         {         S2R R0, SR_CTAID.X ;                           /* 0xf0c8000002570000 */\n"
      "        /*0018*/                   S2R R2, SR_TID.X         }\n"
      "                                                                                  /* 0xf0c8000002170002 */\n"
      "\t\t..........\n");
  ASSERT_TRUE(dump.unparsed.empty()) << dump.unparsed.front().text;
  const auto& code = dump.functions.at(0).instructions;
  ASSERT_EQ(code.size(), 3u);
  EXPECT_EQ(dump.functions[0].arch, "sm_52");
  EXPECT_EQ(code[1].opcode, "S2R");
  EXPECT_EQ(code[1].operands, (std::vector<std::string>{"R0", "SR_CTAID.X"}));
  EXPECT_EQ(code[2].operands, (std::vector<std::string>{"R2", "SR_TID.X"}));
}

TEST(SassParser, WritesJson) {
  const SassDump dump = parse_cuobjdump_sass(one_function_dump("k", "        /*0000*/              @!P0 STG.E.64 desc[UR4][R2.64], R8 ;\n"));
  const nlohmann::json json = dump;
  const nlohmann::json& store = json.at("functions").at(0).at("instructions").at(0);
  EXPECT_EQ(json.at("functions").at(0).at("name"), "k");
  EXPECT_EQ(store.at("opcode"), "STG");
  EXPECT_EQ(store.at("modifiers"), nlohmann::json({"E", "64"}));
  EXPECT_EQ(store.at("predicate"), nlohmann::json({{"reg", "P0"}, {"negated", true}}));
  EXPECT_TRUE(json.at("unparsed").empty());
}

}  // namespace
}  // namespace kopt::sass
