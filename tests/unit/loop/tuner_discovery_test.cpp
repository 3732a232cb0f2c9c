// The built-in tuner on a kernel that declares nothing: it searches what kopt tune-space
// finds (what -D cannot set yet through a rewritten copy), and says before any GPU time when
// there is nothing.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "kopt/core/error.hpp"
#include "kopt/core/files.hpp"
#include "kopt/loop/tuner.hpp"

namespace kopt::loop {
namespace {

namespace fs = std::filesystem;

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(TunerDiscovery, SearchesTheGuardedDefinesOfAKernelThatDeclaresNothing) {
  TempDir folder("kopt-tuner-discovery");
  write_file_atomic(folder.path() / "k.cu",
                    "#ifndef BLOCK_SIZE\n#define BLOCK_SIZE 128\n#endif\nconstexpr int TILE = 32;\n"
                    "extern \"C\" void solve(const float* x, float* y, int n) {}\n");
  SearchSpace space = tunable_space(folder.path() / "k.cu", std::nullopt);
  ASSERT_EQ(space.params.size(), 3u);
  EXPECT_EQ(space.params[0].first, "BLOCK_SIZE");
  EXPECT_THAT(space.params[0].second, ElementsAre("64", "128", "256", "512", "1024"));
  EXPECT_EQ(space.defaults.at("BLOCK_SIZE"), "128");
  // TILE is searched through the copy every branch compiles, where KOPT_TILE sets it.
  EXPECT_EQ(space.params[1].first, "KOPT_TILE");
  EXPECT_THAT(space.params[1].second, ElementsAre("8", "16", "32", "64", "128"));
  EXPECT_THAT(space.rewritten_source, HasSubstr("#define KOPT_TILE 32\n#endif\nconstexpr int TILE = KOPT_TILE;"));
  // Beside them, the compile-options axis: 0 (none), then each searched option in turn.
  EXPECT_EQ(space.params[2].first, "KOPT_COMPILE_OPTION");
  EXPECT_THAT(space.params[2].second, ElementsAre("0", "1", "2", "3", "4", "5"));
  EXPECT_EQ(space.defaults.at("KOPT_COMPILE_OPTION"), "0");
}

TEST(TunerDiscovery, DimThreeAxesAreHeldToTheThreadLimit) {
  TempDir folder("kopt-tuner-discovery");
  write_file_atomic(folder.path() / "k.cu",
                    "extern \"C\" void solve(const float* x, float* y, int n) {\n  dim3 block(16, 16);\n"
                    "  k<<<n, block>>>(x, y, n);\n}\n");
  SearchSpace space = tunable_space(folder.path() / "k.cu", std::nullopt);
  ASSERT_EQ(space.params.size(), 3u);  // the two axes and the compile options
  EXPECT_TRUE(space.allows({{"KOPT_DIM3_BLOCK_X_L2", "32"}, {"KOPT_DIM3_BLOCK_Y_L2", "32"}}));
  EXPECT_FALSE(space.allows({{"KOPT_DIM3_BLOCK_X_L2", "64"}, {"KOPT_DIM3_BLOCK_Y_L2", "32"}}));
}

// transpose on the H200: 3 of 4 branches failed to launch (64x256 threads), 1 to compile (66 KB
// of shared tile); now none of those is proposed, and every proposal keeps the kernel's tiling whole.
TEST(TunerDiscovery, ProposesOnlyWhatCanLaunchOnTheRealTranspose) {
  const fs::path kernel = fs::path(KOPT_SOURCE_DIR) / "bench/realk/transpose/kernel.cu";
  const SearchSpace space = tunable_space(kernel, std::nullopt);
  const Proposal proposal = propose_configurations(space, space.defaults, {space.defaults}, 64, false, 1);
  ASSERT_GE(proposal.configurations.size(), 8u);
  for (const Defines& config : proposal.configurations) {
    const long long tile = std::stoll(config.at("TILE_DIM")), rows = std::stoll(config.at("BLOCK_ROWS"));
    EXPECT_LE(tile * rows, 1024) << tile << "x" << rows;
    EXPECT_LE(4 * tile * (tile + 1), 49152) << tile;
    EXPECT_EQ(tile % rows, 0) << tile << "/" << rows;
  }
}

TEST(TunerDiscovery, SaysThereIsNothingToSearchAndWhereToLook) {
  TempDir folder("kopt-tuner-discovery");
  // 3 is not a power of two (a fact of the problem, not a knob); the block size is asked of CUDA.
  write_file_atomic(folder.path() / "k.cu",
                    "#define RADIUS 3\nextern \"C\" void solve(float* y, int n) {\n  int block = 0, grid = 0;\n"
                    "  cudaOccupancyMaxPotentialBlockSize(&grid, &block, k);\n  k<<<grid, block>>>(y, n);\n}\n");
  try {
    tunable_space(folder.path() / "k.cu", std::nullopt);
    FAIL() << "no error";
  } catch (const Error& error) {
    EXPECT_THAT(error.what(), HasSubstr("kopt tune-space finds no constant to search"));
    EXPECT_THAT(error.what(), HasSubstr("kopt tune-space"));
  }
}

}  // namespace
}  // namespace kopt::loop
