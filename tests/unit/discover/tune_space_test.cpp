// kopt tune-space's discovery: what it finds in an unannotated kernel, what it proposes
// (data/tune_space.toml), what -D can set, and --save's [tune].
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "kopt/core/error.hpp"
#include "kopt/core/files.hpp"
#include "kopt/discover/tune_space.hpp"
#include "kopt/spec/problem_spec.hpp"
#include "kopt/spec/tool_arguments.hpp"

namespace kopt::discover {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr std::string_view kKernel = R"cu(#ifndef BLOCK_SIZE
#define BLOCK_SIZE 256
#endif
#define ITEMS_PER_THREAD 4   // a #define -D cannot override
#define EPSILON_BITS 3       // not a power of two: a fact of the problem, not proposed
constexpr int TILE = 32;
#ifndef KOPT_USE_SMEM
#define KOPT_USE_SMEM 1      // kopt:method memory.tiling_smem
#endif
__global__ void k(const float* x, float* y, int n) {}
extern "C" void solve(const float* x, float* y, int n) {
  dim3 block(16, 16);
  k<<<(n + 255) / 256, 128>>>(x, y, n);
}
)cu";

std::vector<std::string> names(const TuneSpace& space) {
  std::vector<std::string> found;
  for (const Candidate& candidate : space.candidates) found.push_back(candidate.name);
  return found;
}

TEST(TuneSpace, FindsDefinesConstexprsAndLaunchLiteralsButNotMethodSwitches) {
  TuneSpace space = discover_tune_space_in(kKernel, "k.cu");
  EXPECT_THAT(names(space), ElementsAre("BLOCK_SIZE", "ITEMS_PER_THREAD", "TILE", "dim3 block.x", "dim3 block.y",
                                        "<<<>>> block"));
  EXPECT_EQ(space.candidates[0].kind, ConstantKind::guarded_define);
  EXPECT_TRUE(space.candidates[0].settable_by_define());
  EXPECT_EQ(space.candidates[1].kind, ConstantKind::define);
  EXPECT_FALSE(space.candidates[1].settable_by_define());
  EXPECT_EQ(space.candidates[2].kind, ConstantKind::constexpr_constant);
  EXPECT_EQ(space.candidates[5].value, 128);
  EXPECT_EQ(space.candidates[5].line, 13);
}

TEST(TuneSpace, ProposesTheLadderTheNameAsksForWithItsOwnValue) {
  TuneSpace space = discover_tune_space_in(kKernel, "k.cu");
  EXPECT_EQ(space.candidates[0].ladder, "block size");
  EXPECT_THAT(space.candidates[0].proposed, ElementsAre(64, 128, 256, 512, 1024));
  EXPECT_THAT(space.candidates[1].proposed, ElementsAre(1, 2, 4, 8, 16));
  // One axis of dim3 block(16, 16): powers of two around it, not the block-size ladder.
  EXPECT_THAT(space.candidates[3].proposed, ElementsAre(4, 8, 16, 32, 64));
  TuneSpace plain = discover_tune_space_in("#ifndef WIDTH\n#define WIDTH 64\n#endif\n", "w.cu");
  EXPECT_EQ(plain.candidates[0].ladder, "powers of two around 64");
  EXPECT_THAT(plain.candidates[0].proposed, ElementsAre(16, 32, 64, 128, 256));
}

TEST(TuneSpace, HasTheCompileOptionsAxisWithFastMathFlagged) {
  TuneSpace space = discover_tune_space_in("", "empty.cu");
  EXPECT_TRUE(space.candidates.empty());
  ASSERT_FALSE(space.compile_options.empty());
  int tolerance_dependent = 0;
  for (const CompileOption& option : space.compile_options) {
    if (option.tolerance_dependent) {
      ++tolerance_dependent;
      EXPECT_THAT(option.flags, ElementsAre("-use_fast_math"));
    }
  }
  EXPECT_EQ(tolerance_dependent, 1);
}

// The tuner's axis: KOPT_COMPILE_OPTION=N is the N-th searched option's flags; sm_90a is listed
// but not searched (kopt builds for the GPU's arch; [build] arch chooses sm_90a).
TEST(TuneSpace, TheCompileOptionAxisNamesTheSearchedOptionsInOrder) {
  const std::vector<CompileOption> searched = searched_compile_options();
  ASSERT_EQ(searched.size(), 5u);
  for (const CompileOption& option : searched) EXPECT_THAT(option.flags, testing::Not(testing::Contains("-arch=sm_90a")));
  EXPECT_TRUE(compile_option_flags({}).empty());
  EXPECT_TRUE(compile_option_flags({{"KOPT_COMPILE_OPTION", "0"}, {"BM", "64"}}).empty());
  EXPECT_THAT(compile_option_flags({{"KOPT_COMPILE_OPTION", "2"}}), ElementsAre("-maxrregcount=64"));
  EXPECT_THAT(compile_option_flags({{"KOPT_COMPILE_OPTION", "5"}}), ElementsAre("-use_fast_math"));
  for (const char* bad : {"6", "-1", "x", "1x"}) {
    EXPECT_THROW(compile_option_flags({{"KOPT_COMPILE_OPTION", bad}}), Error) << bad;
  }
  // Each reaches nvcc: the compiler's own check of flags lets every searched option through.
  for (const CompileOption& option : searched) EXPECT_NO_THROW(spec::check_compiler_flags(option.flags, "test"));
}

TEST(TuneSpace, SavesWhatMinusDCanSetAsATuneTableTheSpecLoads) {
  TempDir folder("kopt-tune-space-test");
  write_file_atomic(folder.path() / "k.cu", kKernel);
  write_file_atomic(folder.path() / "kopt.toml", "kernel = \"k.cu\"\n[dims]\nn = 1024\n");
  TuneSpace space = discover_tune_space(folder.path() / "k.cu");
  EXPECT_EQ(tune_table_of(space), "BLOCK_SIZE = [64, 128, 256, 512, 1024]\n");
  save_tune_table(space, folder.path() / "kopt.toml");
  spec::ProblemSpec saved = spec::load_problem_spec(folder.path() / "kopt.toml");
  ASSERT_EQ(saved.tune.params.size(), 1u);
  EXPECT_EQ(saved.tune.params[0].first, "BLOCK_SIZE");
  EXPECT_THAT(saved.tune.params[0].second, ElementsAre("64", "128", "256", "512", "1024"));
}

TEST(TuneSpace, RefusesToSaveWhatItCannot) {
  TempDir folder("kopt-tune-space-test");
  write_file_atomic(folder.path() / "kopt.toml", "[tune]\nX = [1, 2]\n");
  TuneSpace space = discover_tune_space_in(kKernel, "k.cu");
  auto error_of = [](auto call) {
    try {
      call();
    } catch (const Error& error) {
      return std::string(error.what());
    }
    return std::string("no error");
  };
  EXPECT_THAT(error_of([&] { save_tune_table(space, folder.path() / "kopt.toml"); }), HasSubstr("already has [tune]"));
  EXPECT_THAT(error_of([&] { save_tune_table(space, folder.path() / "none.toml"); }), HasSubstr("no kopt.toml"));
  TuneSpace rewrite_only = discover_tune_space_in("constexpr int TILE = 32;\n", "t.cu");
  EXPECT_THAT(error_of([&] { save_tune_table(rewrite_only, folder.path() / "kopt.toml"); }),
              HasSubstr("nothing to save: no constant that -D can set"));
}

}  // namespace
}  // namespace kopt::discover

namespace kopt::discover {
namespace {

const Candidate& named(const TuneSpace& space, std::string_view name) {
  for (const Candidate& candidate : space.candidates) {
    if (candidate.name == name) return candidate;
  }
  throw std::runtime_error("no candidate " + std::string(name));
}

// What a constant is by its use beats what its name says: the histogram's `int blocks = 1024`
// is a grid (not a block size of 64..1024), its NUM_BINS a fact of the problem.
TEST(TuneSpace, AGridVariableIsProposedAsAGridAndTheBinCountNotAtAll) {
  constexpr std::string_view kHistogram = R"cu(#define NUM_BINS 256
__global__ void h(const int* in, int* out, int n) { __shared__ int local[NUM_BINS]; }
extern "C" void solve(const int* in, int* out, int n) {
  int threads = 256;
  int blocks = 1024;
  h<<<blocks, threads>>>(in, out, n);
}
)cu";
  const TuneSpace space = discover_tune_space_in(kHistogram, "histogram.cu");
  ASSERT_EQ(space.candidates.size(), 2u);
  EXPECT_EQ(named(space, "threads").ladder, "block size");
  EXPECT_EQ(named(space, "blocks").role, "grid size");
  EXPECT_THAT(named(space, "blocks").proposed, ElementsAre(256, 512, 1024, 2048, 4096));
}

// BLOCK_ROWS names a block but is one axis of dim3 block(TILE_DIM, BLOCK_ROWS): powers of two
// around its own 8, not the block sizes 64..1024 (each of which times 32 cannot launch).
TEST(TuneSpace, AnAxisOfADimThreeBlockIsNotABlockSize) {
  constexpr std::string_view kTranspose = R"cu(#define TILE_DIM 32
#define BLOCK_ROWS 8
extern "C" void solve(const float* x, float* y, int rows, int cols) {
  dim3 block(TILE_DIM, BLOCK_ROWS);
  dim3 grid((cols + TILE_DIM - 1) / TILE_DIM, (rows + TILE_DIM - 1) / TILE_DIM);
  t<<<grid, block>>>(x, y, rows, cols);
}
)cu";
  const TuneSpace space = discover_tune_space_in(kTranspose, "transpose.cu");
  EXPECT_EQ(named(space, "BLOCK_ROWS").role, "dim3 axis");
  EXPECT_THAT(named(space, "BLOCK_ROWS").proposed, ElementsAre(2, 4, 8, 16, 32));
  EXPECT_THAT(named(space, "TILE_DIM").proposed, ElementsAre(8, 16, 32, 64, 128));
}

}  // namespace
}  // namespace kopt::discover
