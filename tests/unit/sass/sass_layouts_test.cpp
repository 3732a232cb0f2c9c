// The cuobjdump layouts of the other architectures kopt targets. No captured sm_80 or sm_100
// dump is in tests/fixtures yet, so the snippets below are HAND-WRITTEN from knowledge of
// cuobjdump 12/13 output (same two-line 128-bit layout as sm_90; the encoding words are
// made up, not real encodings). Captured dumps should take their place once a machine of
// those architectures, or CI's cuobjdump on cross-compiled kernels, produces them.

#include "kopt/sass/sass_parser.hpp"
#include "kopt/sass/sass_profile.hpp"

#include <gtest/gtest.h>

namespace kopt::sass {
namespace {

// Hand-written: an sm_80 cp.async + ldmatrix + mma.sync tile loop, CUDA 12+ operand spelling.
const char* const kHandWrittenSm80 = R"SASS(
Fatbin elf code:
================
arch = sm_80
code version = [1,7]
host = linux
compile_size = 64bit

	code for sm_80
		Function : _Z8mma_tilePK6__halfS1_Pf
	.headerflags	@"EF_CUDA_SM80 EF_CUDA_VIRTUAL_SM(EF_CUDA_SM80)"
        /*0000*/                   IMAD.MOV.U32 R1, RZ, RZ, c[0x0][0x28] ;    /* 0x00000a00ff017624 */
                                                                              /* 0x000fc400078e00ff */
        /*0010*/                   LDGSTS.E.BYPASS.LTC128B.128 [R5], desc[UR4][R2.64] ;  /* 0x0000000002057fae */
                                                                              /* 0x000fe8000b901c44 */
        /*0020*/                   LDGDEPBAR ;                                /* 0x00000000000079af */
                                                                              /* 0x000fe20000000000 */
        /*0030*/                   DEPBAR.LE SB0, 0x0 ;                       /* 0x000080000000791a */
                                                                              /* 0x000fe20000000000 */
        /*0040*/                   BAR.SYNC.DEFER_BLOCKING 0x0 ;              /* 0x0000000000007b1d */
                                                                              /* 0x000fec0000010000 */
        /*0050*/                   LDSM.16.M88.4 R8, [R5] ;                   /* 0x000000000508783b */
                                                                              /* 0x000e280000000200 */
        /*0060*/                   HMMA.16816.F32 R12, R8, R16, R12 ;         /* 0x000000100c0c723c */
                                                                              /* 0x001ff6000000180c */
        /*0070*/                   STG.E.128 desc[UR4][R2.64], R12 ;          /* 0x0000000c02007986 */
                                                                              /* 0x000fe2000c101d04 */
        /*0080*/                   EXIT ;                                     /* 0x000000000000794d */
                                                                              /* 0x000fea0003800000 */
        /*0090*/                   BRA 0x90;                                  /* 0xfffffff000007947 */
                                                                              /* 0x000fc0000383ffff */
		..........

)SASS";

// Hand-written: an sm_100a tcgen05 loop (TMA load, mbarrier, UTCHMMA into tensor memory,
// LDTM out of it) with a 256-bit store.
const char* const kHandWrittenSm100 = R"SASS(
Fatbin elf code:
================
arch = sm_100a
code version = [1,8]
host = linux
compile_size = 64bit

	code for sm_100a
	.target	sm_100a

		Function : _Z9tc05_gemmv
	.headerflags	@"EF_CUDA_SM100 EF_CUDA_ACCELERATORS EF_CUDA_VIRTUAL_SM(EF_CUDA_SM100)"
        /*0000*/                   LDC R1, c[0x0][0x37c] ;                    /* 0x0000df00ff017b82 */
                                                                              /* 0x000fe20000000800 */
        /*0010*/                   UTMALDG.2D [UR8], [UR4] ;                  /* 0x00000004080075b4 */
                                                                              /* 0x0001e20008019000 */
        /*0020*/                   SYNCS.ARRIVE.TRANS64.RED.A1T0 RZ, [UR6], RZ ;  /* 0x000000ffffff79a7 */
                                                                              /* 0x000fe20008100006 */
        /*0030*/              @!P0 SYNCS.PHASECHK.TRANS64.TRYWAIT P0, [UR6], R3 ;  /* 0x00000003ff0085a7 */
                                                                              /* 0x000e240008000106 */
        /*0040*/                   UTCHMMA gdesc[UR10], gdesc[UR12], tmem[UR14], tmem[UR16], idesc[UR17], UPT ;  /* 0x000000100a0075ea */
                                                                              /* 0x000fe2000b80000e */
        /*0050*/                   LDTM.x16 R4, tmem[UR5] ;                   /* 0x00000000000479ee */
                                                                              /* 0x000e620008200000 */
        /*0060*/                   STG.E.ENL2.256 desc[UR4][R2.64], R4, R12 ;  /* 0x0000000402007986 */
                                                                              /* 0x002fe2000c101d04 */
        /*0070*/                   EXIT ;                                     /* 0x000000000000794d */
                                                                              /* 0x000fea0003800000 */
		..........

)SASS";

TEST(SassLayouts, ReadsTheSm80Layout) {
  const SassDump dump = parse_cuobjdump_sass(kHandWrittenSm80);
  ASSERT_TRUE(dump.unparsed.empty()) << dump.unparsed.front().text;
  ASSERT_EQ(dump.functions.size(), 1u);
  EXPECT_EQ(dump.functions[0].arch, "sm_80");
  const SassFunctionProfile profile = profile_function(dump.functions[0]);
  EXPECT_EQ(profile.instruction_count, 9);
  EXPECT_EQ(profile.padding_count, 1);
  EXPECT_EQ(profile.shared_memory, (OpcodeHistogram{{"LDGSTS.E.BYPASS.LTC128B.128", 1}, {"LDSM.16.M88.4", 1}}));
  EXPECT_EQ(profile.tensor, (OpcodeHistogram{{"HMMA.16816.F32", 1}}));
  EXPECT_EQ(profile.global_store_bits, (WidthHistogram{{128, 1}}));
  EXPECT_TRUE(profile.global_load_bits.empty());  // LDGSTS bypasses registers; it is not an LDG
}

TEST(SassLayouts, ReadsTheSm100Layout) {
  const SassDump dump = parse_cuobjdump_sass(kHandWrittenSm100);
  ASSERT_TRUE(dump.unparsed.empty()) << dump.unparsed.front().text;
  ASSERT_EQ(dump.functions.size(), 1u);
  const SassFunction& function = dump.functions[0];
  EXPECT_EQ(function.arch, "sm_100a");
  EXPECT_EQ(function.instructions.at(3).predicate->reg, "P0");
  EXPECT_EQ(function.instructions.at(3).full_opcode(), "SYNCS.PHASECHK.TRANS64.TRYWAIT");
  EXPECT_EQ(function.instructions.at(4).operands.size(), 6u);
  EXPECT_EQ(function.instructions.at(5).modifiers, std::vector<std::string>{"x16"});
  const SassFunctionProfile profile = profile_function(function);
  EXPECT_EQ(profile.tensor, (OpcodeHistogram{{"UTCHMMA", 1}}));
  EXPECT_EQ(profile.shared_memory, (OpcodeHistogram{{"UTMALDG.2D", 1}}));
  EXPECT_EQ(profile.global_store_bits, (WidthHistogram{{256, 1}}));
}

}  // namespace
}  // namespace kopt::sass
