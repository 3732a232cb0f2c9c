// The loops and data-flow facts of sass_structure.hpp, and the signatures that read them, on
// real machine code: the kernel pairs of tests/sass_signatures/sm90.cu captured once
// (tests/fixtures/README.md), as the `sass.signatures` test compiles them with nvcc.
#include "kopt/sass/sass_structure.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>

#include "kopt/catalog/sass_signature.hpp"
#include "kopt/core/error.hpp"
#include "kopt/core/files.hpp"
#include "kopt/sass/disassembler.hpp"
#include "kopt/sass/sass_registers.hpp"

namespace kopt::sass {
namespace {

const std::map<std::string, SassFunctionProfile>& pairs() {
  static const std::map<std::string, SassFunctionProfile> by_name = [] {
    const SassDump dump = parse_cuobjdump_sass(
        read_file(std::string(KOPT_FIXTURES_DIR) + "/sass/cuobjdump13.5_sm90_signature_pairs.txt"));
    std::map<std::string, SassFunctionProfile> functions;
    for (const SassFunctionProfile& f : kernel_profile(dump).functions) functions[f.name] = f;
    return functions;
  }();
  return by_name;
}

int fact(const std::string& kernel, const std::string& name) { return pairs().at(kernel).structure.at(name); }

TEST(SassRegisters, ReadsRegistersPairsAndDestinations) {
  EXPECT_THAT(registers_in("desc[UR4][R2.64+0x10]"), testing::ElementsAre("UR4", "R2", "R3"));
  EXPECT_THAT(registers_in("-R3.reuse"), testing::ElementsAre("R3"));
  EXPECT_THAT(registers_in("SR_TID.X"), testing::IsEmpty());
  EXPECT_THAT(registers_in("RZ"), testing::IsEmpty());
  const Instruction load{.opcode = "LDG", .modifiers = {"E", "128"}, .operands = {"R4", "desc[UR4][R2.64]"}};
  EXPECT_THAT(written_registers(load), testing::ElementsAre("R4", "R5", "R6", "R7"));
  EXPECT_THAT(read_registers(load), testing::ElementsAre("UR4", "R2", "R3"));
  const Instruction store{.opcode = "STS", .operands = {"[R5+0x10]", "R0"}};
  EXPECT_THAT(written_registers(store), testing::IsEmpty());
  EXPECT_EQ(address_register("[R5+UR4]"), "R5");
  EXPECT_EQ(branch_target(Instruction{.address = 0x140, .opcode = "BRA", .operands = {"0xd0"}}), 0xd0u);
  EXPECT_EQ(immediate_value("-0x1"), -1);
}

TEST(SassStructure, EveryProfileListsEveryFact) {
  for (const auto& [name, profile] : pairs()) {
    EXPECT_EQ(profile.structure.size(), structure_fact_names().size()) << name;
    EXPECT_FALSE(profile.loop_bodies.empty()) << name;
  }
}

TEST(SassStructure, EachFactTellsItsPairApart) {
  // With the method against without it, as nvcc 13 compiles them for sm_90.
  EXPECT_EQ(fact("sig_grid_stride", "grid_size_reads"), 1);
  EXPECT_EQ(fact("without_grid_stride", "loops"), 0);
  EXPECT_EQ(fact("sig_independent_accumulators", "accumulator_chains"), 4);
  EXPECT_EQ(fact("without_independent_accumulators", "accumulator_chains"), 1);  // unrolled 16 times, one chain
  EXPECT_EQ(fact("sig_loads_in_flight", "loads_before_first_use"), 8);
  EXPECT_EQ(fact("without_loads_in_flight", "loads_before_first_use"), 2);
  EXPECT_EQ(fact("sig_loads_held_across_math", "fma_between_load_and_store"), 16);
  EXPECT_LT(fact("without_loads_held_across_math", "fma_between_load_and_store"), 8);
  EXPECT_EQ(fact("sig_xor_swizzled_shared", "xor_shared_addresses"), 2);  // the write and the read
  EXPECT_EQ(fact("without_xor_swizzled_shared", "xor_shared_addresses"), 0);
  EXPECT_GT(fact("sig_block_index_remap", "block_index_remaps"), 0);
  EXPECT_EQ(fact("without_block_index_remap", "block_index_remaps"), 0);
  EXPECT_EQ(fact("sig_accumulator_epilogue", "transformed_accumulator_stores"), 1);
  EXPECT_EQ(fact("without_accumulator_epilogue", "transformed_accumulator_stores"), 0);
  EXPECT_GT(fact("sig_coalesced_loads", "coalesced_global_loads"), 0);
  EXPECT_EQ(fact("without_coalesced_loads", "coalesced_global_loads"), 0);  // a run-time stride
  EXPECT_EQ(fact("sig_coalesced_loads", "coalesced_load_percent"), 100);
  EXPECT_EQ(fact("without_coalesced_loads", "coalesced_load_percent"), 0);
  EXPECT_GE(fact("sig_unrolled_loop", "repeated_loads"), 8);  // #pragma unroll 8: 8 copies of one load
  EXPECT_EQ(fact("without_unrolled_loop", "repeated_loads"), 1);
  EXPECT_EQ(fact("sig_reciprocal_not_division", "reciprocal_multiplies"), 2);  // one reciprocal, two FMULs
  EXPECT_EQ(fact("without_reciprocal_not_division", "reciprocal_multiplies"), 0);
}

TEST(SassStructure, SignaturesReadTheFactsAndLoopBodies) {
  const catalog::SignatureTable table = catalog::load_sass_signatures();
  const auto match = [&](const std::string& id, const std::string& kernel) {
    return catalog::match_signature(table, id, {pairs().at(kernel)}, 90);
  };
  EXPECT_THAT(match("independent_accumulators", "sig_independent_accumulators").evidence,
              testing::Contains(testing::HasSubstr("accumulator_chains 4 (at least 4)")));
  EXPECT_THAT(match("independent_accumulators", "without_independent_accumulators").reason,
              testing::HasSubstr("accumulator_chains at least 4"));
  // Online softmax: both in one loop body; three passes put them in separate loops.
  EXPECT_THAT(match("max_and_exp_in_one_loop", "sig_max_and_exp_in_one_loop").evidence,
              testing::Contains(testing::HasSubstr("a loop body: FMNMX")));
  EXPECT_EQ(match("max_and_exp_in_one_loop", "without_max_and_exp_in_one_loop").status,
            catalog::SignatureStatus::missing);
  EXPECT_THAT(match("unrolled_loop", "sig_unrolled_loop").evidence, testing::Contains(testing::HasSubstr("repeated_loads")));
  EXPECT_EQ(match("unrolled_loop", "without_unrolled_loop").status, catalog::SignatureStatus::missing);
}

TEST(SassStructure, MalformedStructuralChecksAreNamed) {
  auto message = [](std::string_view text) {
    try {
      catalog::parse_sass_signatures("schema_version = 1\n[x]\ndescription = \"d\"\n" + std::string(text), "s.toml");
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_THAT(message("sm_90 = { structure = { colour = 1 } }\n"), testing::HasSubstr("unknown key \"colour\""));
  EXPECT_THAT(message("sm_90 = { structure = { loops = 0 } }\n"), testing::HasSubstr("at least 1"));
  EXPECT_THAT(message("sm_90 = { loop = { of = [\"FFMA\"] } }\n"), testing::HasSubstr("a loop check needs"));
  EXPECT_EQ(message("sm_90 = { loop = { all = [\"FMNMX\"] } }\n"), "no error");
}

}  // namespace
}  // namespace kopt::sass
