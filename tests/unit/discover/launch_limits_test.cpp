// What the source says a configuration needs to launch (threads per block, static shared
// memory, the kernel's own divisibility assumptions), on bench/realk's unannotated kernels:
// the configurations that failed on the H200 (64x256-thread blocks, a 66 KB tile) are refused
// on the host, and the ones that ran are allowed.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "kopt/core/files.hpp"
#include "kopt/discover/launch_limits.hpp"
#include "kopt/spec/expression.hpp"

namespace kopt::discover {
namespace {

namespace fs = std::filesystem;
using ::testing::IsEmpty;

std::string realk_source(const std::string& name) {
  return read_file(fs::path(KOPT_SOURCE_DIR) / "bench/realk" / name / "kernel.cu");
}

// Every restriction of `restrictions` holds for `values`.
bool allowed(const std::vector<LaunchRestriction>& restrictions, const spec::Dims& values) {
  for (const LaunchRestriction& r : restrictions) {
    if (spec::to_double(spec::Expression::parse(r.expression).evaluate(values)) == 0) return false;
  }
  return true;
}

spec::Dims tile(std::int64_t tile_dim, std::int64_t block_rows) {
  return {{"TILE_DIM", tile_dim}, {"BLOCK_ROWS", block_rows}};
}

TEST(LaunchLimits, ComeFromTheDataFile) {
  const LaunchLimits limits = launch_limits();
  EXPECT_EQ(limits.max_threads_per_block, 1024);
  EXPECT_EQ(limits.max_static_shared_bytes, 49152);
  EXPECT_EQ(limits.type_bytes.at("float"), 4);
  EXPECT_EQ(limits.type_bytes.at("double"), 8);
}

TEST(LaunchLimits, TransposeRefusesWhatFailedOnTheGpuAndKeepsWhatRan) {
  const std::vector<LaunchRestriction> restrictions = discovered_restrictions(realk_source("transpose"), "kernel.cu");
  EXPECT_TRUE(allowed(restrictions, tile(32, 8)));   // the baseline
  EXPECT_TRUE(allowed(restrictions, tile(64, 16)));  // 1024 threads, 16.6 KB
  EXPECT_TRUE(allowed(restrictions, tile(16, 16)));
  // 64 x 256 threads: "a kernel launch in solve failed: invalid argument" on the H200.
  EXPECT_FALSE(allowed(restrictions, tile(64, 256)));
  // 128 x 129 floats = 66 KB of static shared memory: ptxas's "uses too much shared data".
  EXPECT_FALSE(allowed(restrictions, tile(128, 8)));
  // 32 rows loaded 12 at a time leave 8 of them unloaded: the loop says TILE_DIM % BLOCK_ROWS == 0.
  EXPECT_FALSE(allowed(restrictions, tile(32, 12)));
  EXPECT_FALSE(allowed(restrictions, tile(8, 16)));
}

TEST(LaunchLimits, MatmulSquareBlockIsHeldTo1024Threads) {
  const std::vector<LaunchRestriction> restrictions = discovered_restrictions(realk_source("matmul_naive"), "kernel.cu");
  ASSERT_EQ(restrictions.size(), 1u);
  EXPECT_EQ(restrictions[0].why, "threads per block of the launch on line 22");
  EXPECT_TRUE(allowed(restrictions, {{"TILE_WIDTH", 32}}));
  EXPECT_FALSE(allowed(restrictions, {{"TILE_WIDTH", 64}}));  // 64x64 threads per block: cannot launch
}

TEST(LaunchLimits, SharedArraysOfAKernelAddUp) {
  // layernorm: two float arrays of BLOCK_SIZE.
  const std::vector<LaunchRestriction> restrictions =
      launch_restrictions(realk_source("layernorm"), {"BLOCK_SIZE"}, {.max_threads_per_block = 1024,
                                                                       .max_static_shared_bytes = 4096,
                                                                       .type_bytes = {{"float", 4}}});
  EXPECT_TRUE(allowed(restrictions, {{"BLOCK_SIZE", 512}}));  // 2 x 2 KB
  EXPECT_FALSE(allowed(restrictions, {{"BLOCK_SIZE", 1024}}));
}

TEST(LaunchLimits, ALaunchVariableIsExpandedToItsMacro) {
  // vector_add's `int threadsPerBlock = 256;` is KOPT_THREADSPERBLOCK in the copy kopt compiles.
  const std::vector<LaunchRestriction> restrictions = discovered_restrictions(realk_source("vector_add"), "kernel.cu");
  EXPECT_TRUE(allowed(restrictions, {{"KOPT_THREADSPERBLOCK", 1024}}));
  EXPECT_FALSE(allowed(restrictions, {{"KOPT_THREADSPERBLOCK", 2048}}));
}

TEST(LaunchLimits, AStaticAssertOverTheParametersIsARestriction) {
  constexpr std::string_view kSource = R"cu(#define TILE 32
#define VEC 4
static_assert(TILE % VEC == 0 && VEC <= 8, "a tile is whole vectors");
__global__ void k(float* y) { __shared__ float s[TILE]; }
)cu";
  const std::vector<LaunchRestriction> restrictions = launch_restrictions(kSource, {"TILE", "VEC"}, launch_limits());
  EXPECT_TRUE(allowed(restrictions, {{"TILE", 32}, {"VEC", 8}}));
  EXPECT_FALSE(allowed(restrictions, {{"TILE", 32}, {"VEC", 16}}));
  EXPECT_FALSE(allowed(restrictions, {{"TILE", 4}, {"VEC", 8}}));
}

TEST(LaunchLimits, WhatDependsOnTheProblemOrIsNotUnderstoodRestrictsNothing) {
  // The block size is the problem's (n), the shared array's type unknown, the array extern.
  constexpr std::string_view kSource = R"cu(#define TILE 32
struct Pair { float a, b; };
__global__ void k(float* y) { __shared__ Pair p[TILE]; extern __shared__ float dynamic[]; }
extern "C" void solve(float* y, int n) { k<<<1, n / TILE>>>(y); }
)cu";
  EXPECT_THAT(launch_restrictions(kSource, {"TILE"}, launch_limits()), IsEmpty());
}

}  // namespace
}  // namespace kopt::discover
