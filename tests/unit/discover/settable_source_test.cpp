// The rewrite that lets the tuner search what -D cannot set yet: plain #defines guarded,
// constexpr and launch literals (and the variables a launch reads) replaced by macros defined
// under #ifndef; found again afterwards as guarded defines, with the same values proposed.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "kopt/discover/settable_source.hpp"
#include "kopt/discover/tune_space.hpp"

namespace kopt::discover {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr std::string_view kCommunityKernel = R"cu(#include <cuda_runtime.h>
#define ITEMS 4
constexpr int TILE = 32;
__global__ void k(const float* x, float* y, int n) {}
extern "C" void solve(const float* x, float* y, int n) {
  int threadsPerBlock = 256;
  int blocks = (n + threadsPerBlock - 1) / threadsPerBlock;
  dim3 block(16, 16);
  k<<<blocks, threadsPerBlock>>>(x, y, n);
  k<<<blocks, 128>>>(x, y, n);
}
)cu";

std::vector<std::string> guarded(const TuneSpace& space) {
  std::vector<std::string> names;
  for (const Candidate& candidate : space.candidates) {
    if (candidate.settable_by_define()) names.push_back(candidate.name + "=" + std::to_string(candidate.value));
  }
  return names;
}

TEST(SettableSource, EveryCandidateBecomesAGuardedDefineWithItsValue) {
  const TuneSpace before = discover_tune_space_in(kCommunityKernel, "k.cu");
  ASSERT_EQ(before.candidates.size(), 6u);
  const std::string rewritten = settable_source(kCommunityKernel, before);
  const TuneSpace after = discover_tune_space_in(rewritten, "k.cu");
  EXPECT_THAT(guarded(after), ElementsAre("ITEMS=4", "KOPT_TILE=32", "KOPT_THREADSPERBLOCK=256",
                                          "KOPT_DIM3_BLOCK_X_L8=16", "KOPT_DIM3_BLOCK_Y_L8=16", "KOPT_BLOCK_L10=128"));
  EXPECT_EQ(after.candidates.size(), 6u);  // nothing left that needs a rewrite
  // The proposed values follow the macro's name as they followed the constant's.
  EXPECT_EQ(after.candidates[2].ladder, "block size");
  EXPECT_EQ(after.candidates[5].ladder, "block size");
}

TEST(SettableSource, ReadsAsTheOriginalWhenNothingIsSet) {
  const std::string rewritten = settable_source(kCommunityKernel, discover_tune_space_in(kCommunityKernel, "k.cu"));
  EXPECT_THAT(rewritten, HasSubstr("#ifndef ITEMS\n#define ITEMS 4\n#endif\n"));
  EXPECT_THAT(rewritten, HasSubstr("#ifndef KOPT_TILE\n#define KOPT_TILE 32\n#endif\nconstexpr int TILE = KOPT_TILE;"));
  EXPECT_THAT(rewritten, HasSubstr("#define KOPT_THREADSPERBLOCK 256\n#endif\n  int threadsPerBlock = KOPT_THREADSPERBLOCK;"));
  EXPECT_THAT(rewritten, HasSubstr("dim3 block(KOPT_DIM3_BLOCK_X_L8, KOPT_DIM3_BLOCK_Y_L8);"));
  EXPECT_THAT(rewritten, HasSubstr("#define KOPT_BLOCK_L10 128\n#endif\n  k<<<blocks, KOPT_BLOCK_L10>>>(x, y, n);"));
  // Rewriting what is already settable changes nothing.
  EXPECT_EQ(settable_source(rewritten, discover_tune_space_in(rewritten, "k.cu")), rewritten);
}

TEST(SettableSource, Dim3AxesArePowersOfTwoAroundNotBlockSizes) {
  const TuneSpace space = discover_tune_space_in(kCommunityKernel, "k.cu");
  EXPECT_EQ(space.candidates[3].name, "dim3 block.x");
  EXPECT_THAT(space.candidates[3].proposed, ElementsAre(4, 8, 16, 32, 64));
  EXPECT_EQ(space.candidates[3].kind, ConstantKind::launch_literal);
  EXPECT_EQ(space.candidates[2].kind, ConstantKind::launch_variable);
  EXPECT_EQ(settable_macro(space.candidates[3]), "KOPT_DIM3_BLOCK_X_L8");
}

TEST(SettableSource, TheVerdictNamesWhatOptimizeSearchesAndHow) {
  EXPECT_EQ(search_verdict(discover_tune_space_in("#ifndef BLOCK\n#define BLOCK 128\n#endif\nconstexpr int TILE = 32;\n", "k.cu")),
            "kopt optimize searches: by -D: BLOCK (--save writes them as [tune]); through a copy made settable: TILE "
            "as KOPT_TILE; and the compile options above as KOPT_COMPILE_OPTION = 0 (none) to 5\n");
  EXPECT_EQ(search_verdict(discover_tune_space_in("#define RADIUS 3\n", "k.cu")),
            "nothing to search: no constant with a proposed ladder\n");
}

}  // namespace
}  // namespace kopt::discover
