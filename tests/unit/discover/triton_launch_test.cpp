#include "kopt/discover/triton_launch.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>

namespace kopt::discover {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Pair;

constexpr std::string_view kSource =
    "WARPS = 4\n"
    "def solve(x, n):\n"
    "    BLOCK_SIZE = 1024\n"
    "    k[(n,)](x, BLOCK_SIZE=BLOCK_SIZE, ODD=3, num_warps=WARPS, num_stages=2)\n";

std::vector<TritonLaunchConstant> constants() {
  return {{.kernel = "k", .name = "BLOCK_SIZE", .value = 1024, .line = 3, .col = 17, .end_col = 21},
          {.kernel = "k", .name = "ODD", .value = 3, .line = 4, .col = 42, .end_col = 43},
          {.kernel = "k", .name = "num_warps", .value = 4, .line = 4, .variable = "WARPS"},
          {.kernel = "k", .name = "num_stages", .value = 2, .line = 4, .col = 73, .end_col = 74}};
}

// A power-of-two constexpr takes the powers of two around it; num_warps and num_stages their
// lists; a constant that is not a power of two (3) is the problem's, not searched.
TEST(TritonLaunchSpace, ProposesValuesAroundEachConstant) {
  const TritonLaunchSpace space = triton_launch_space(std::string(kSource), constants());
  ASSERT_EQ(space.params.size(), 3u);
  EXPECT_THAT(space.params[0], Pair("KOPT_BLOCK_SIZE", ElementsAre("256", "512", "1024", "2048", "4096")));
  EXPECT_THAT(space.params[1], Pair("WARPS", ElementsAre("1", "2", "4", "8", "16", "32")));
  EXPECT_THAT(space.params[2], Pair("KOPT_NUM_STAGES", ElementsAre("1", "2", "3", "4", "5")));
  EXPECT_EQ(space.defaults.at("KOPT_BLOCK_SIZE"), "1024");
  EXPECT_EQ(space.defaults.at("WARPS"), "4");
  EXPECT_THAT(space.found[0], HasSubstr("KOPT_BLOCK_SIZE  k's BLOCK_SIZE=1024 (line 3): 256 512 1024 2048 4096"));
}

// Literals become module-level variables of kopt's name (a local of solve named like the
// keyword would otherwise shadow it), defined at the end of the module, where solve finds them
// when it runs; a module variable is settable as it is.
TEST(TritonLaunchSpace, RewritesEachLiteralIntoAModuleVariable) {
  const TritonLaunchSpace space = triton_launch_space(std::string(kSource), constants());
  EXPECT_THAT(space.rewritten_source, HasSubstr("    BLOCK_SIZE = KOPT_BLOCK_SIZE\n"));
  EXPECT_THAT(space.rewritten_source,
              HasSubstr("k[(n,)](x, BLOCK_SIZE=BLOCK_SIZE, ODD=3, num_warps=WARPS, num_stages=KOPT_NUM_STAGES)\n"));
  EXPECT_THAT(space.rewritten_source, HasSubstr("\nKOPT_BLOCK_SIZE = 1024  # k's BLOCK_SIZE, line 3\n"));
  EXPECT_THAT(space.rewritten_source, HasSubstr("\nKOPT_NUM_STAGES = 2  # k's num_stages, line 4\n"));
  EXPECT_THAT(space.rewritten_source, HasSubstr("WARPS = 4\n"));
}

// k[(triton.cdiv(n, 1024),)](..., BLOCK=1024): the grid's 1024 is the block's, and follows it,
// or a smaller block would leave most of the problem undone.
TEST(TritonLaunchSpace, TheSameNumberInTheGridFollowsTheLiteral) {
  const std::string source = "def solve(x, n):\n    k[(triton.cdiv(n, 1024),)](x, n, BLOCK=1024)\n";
  const TritonLaunchSpace space = triton_launch_space(
      source, {{.kernel = "k", .name = "BLOCK", .value = 1024, .line = 2, .col = 43, .end_col = 47, .also = {{2, 22, 26}}}});
  EXPECT_THAT(space.rewritten_source, HasSubstr("    k[(triton.cdiv(n, KOPT_BLOCK),)](x, n, BLOCK=KOPT_BLOCK)\n"));
}

TEST(TritonLaunchSpace, ANameTheFileAlreadyUsesGetsItsLine) {
  const std::string source = std::string(kSource) + "KOPT_BLOCK_SIZE = 'mine'\n";
  const TritonLaunchSpace space = triton_launch_space(source, constants());
  EXPECT_EQ(space.params[0].first, "KOPT_BLOCK_SIZE_L3");
}

TEST(TritonLaunchSpace, OnlyModuleVariablesNeedNoRewrite) {
  const TritonLaunchSpace space =
      triton_launch_space(std::string(kSource), {{.kernel = "k", .name = "num_warps", .value = 4, .line = 4,
                                                  .variable = "WARPS"}});
  ASSERT_EQ(space.params.size(), 1u);
  EXPECT_TRUE(space.rewritten_source.empty());
}

// The whole way, through python/kopt_python_facts.py: the fixture as people write it.
TEST(TritonLaunchSpace, ReadsTheFixturesLaunch) {
  const std::filesystem::path fixture = std::filesystem::path(KOPT_SOURCE_DIR) / "tests/fixtures/triton_launch/kernel.py";
  const TritonLaunchSpace space = triton_launch_space(fixture);
  ASSERT_EQ(space.params.size(), 3u);
  EXPECT_EQ(space.params[0].first, "KOPT_BLOCK_SIZE");
  EXPECT_EQ(space.params[1].first, "WARPS");
  EXPECT_EQ(space.params[2].first, "KOPT_NUM_STAGES");
  EXPECT_THAT(space.rewritten_source, HasSubstr("    BLOCK_SIZE = KOPT_BLOCK_SIZE\n"));
}

}  // namespace
}  // namespace kopt::discover
