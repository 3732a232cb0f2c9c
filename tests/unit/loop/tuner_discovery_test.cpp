// The built-in tuner on a kernel that declares nothing: it searches what kopt tune-space
// finds that -D can set, and says before any GPU time when there is nothing.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "kopt/core/error.hpp"
#include "kopt/core/files.hpp"
#include "kopt/loop/tuner.hpp"

namespace kopt::loop {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(TunerDiscovery, SearchesTheGuardedDefinesOfAKernelThatDeclaresNothing) {
  TempDir folder("kopt-tuner-discovery");
  write_file_atomic(folder.path() / "k.cu",
                    "#ifndef BLOCK_SIZE\n#define BLOCK_SIZE 128\n#endif\nconstexpr int TILE = 32;\n"
                    "extern \"C\" void solve(const float* x, float* y, int n) {}\n");
  SearchSpace space = tunable_space(folder.path() / "k.cu", std::nullopt);
  ASSERT_EQ(space.params.size(), 1u);  // TILE needs a source rewrite: not searched
  EXPECT_EQ(space.params[0].first, "BLOCK_SIZE");
  EXPECT_THAT(space.params[0].second, ElementsAre("64", "128", "256", "512", "1024"));
  EXPECT_EQ(space.defaults.at("BLOCK_SIZE"), "128");
}

TEST(TunerDiscovery, SaysThereIsNothingToSearchAndWhereToLook) {
  TempDir folder("kopt-tuner-discovery");
  write_file_atomic(folder.path() / "k.cu", "constexpr int TILE = 32;\nextern \"C\" void solve(float* y, int n) {}\n");
  try {
    tunable_space(folder.path() / "k.cu", std::nullopt);
    FAIL() << "no error";
  } catch (const Error& error) {
    EXPECT_THAT(error.what(), HasSubstr("has no #ifndef-guarded #define to search"));
    EXPECT_THAT(error.what(), HasSubstr("kopt tune-space"));
  }
}

}  // namespace
}  // namespace kopt::loop
