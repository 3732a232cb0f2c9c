// The host-written fills of set(...), cat(...) and halves(...): the written elements hold their
// values, the rest are the fill beneath as drawn (docs/check.md).
#include "kopt/run/host_writes.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <vector>

#include "kopt/spec/dtype.hpp"
#include "kopt/spec/problem_spec.hpp"

namespace kopt::run {
namespace {

std::vector<double> written_fill(const std::string& dtype_name, const spec::InitSpec& init, std::int64_t n,
                             std::uint64_t seed) {
  const spec::DType& dtype = *spec::dtype_named(dtype_name);
  std::vector<std::byte> data(static_cast<std::size_t>(n) * dtype.bytes);
  fill_buffer(data, dtype, init, seed, "grid");
  std::vector<double> values;
  for (std::int64_t i = 0; i < n; ++i) values.push_back(element_as_double(data.data(), element_type(dtype), i));
  return values;
}

spec::InitSpec bound_fill(std::string_view text) { return spec::InitFormula::parse(text).bind({}); }

// 46_bfs_shortest_path's grid: random 0/1, the first and last cell free and the first 10
// columns of each row of 50 cleared; every other element is the fill's own draw.
TEST(HostWrites, SetWritesItsElementsAndLeavesTheRestAsDrawn) {
  const auto drawn = written_fill("int32", bound_fill("int[0, 2)"), 1000, 5);
  const auto grid = written_fill("int32", bound_fill("set(int[0, 2), 0, 0, -1, 0::50:10)"), 1000, 5);
  for (int i = 0; i < 1000; ++i) {
    const bool written = i == 999 || i % 50 < 10;
    EXPECT_EQ(grid[i], written ? 0.0 : drawn[i]) << i;
  }
  EXPECT_GT(std::ranges::count(grid, 1.0), 300);  // the fill still shows where nothing is written
}

// Nested sets apply innermost first: the later write wins where both select an element.
TEST(HostWrites, LaterWritesWin) {
  const auto values = written_fill("float32", bound_fill("set(set(zeros, 1, 2:6), 2, 5, -1)"), 8, 1);
  EXPECT_EQ(values, (std::vector<double>{0, 0, 1, 1, 1, 2, 0, 2}));
  const auto strided = written_fill("float32", bound_fill("set(zeros, 3, 1::3)"), 8, 1);
  EXPECT_EQ(strided, (std::vector<double>{0, 3, 0, 0, 3, 0, 0, 3}));
}

// A walk starts where it says, steps by draws from [lo, hi), and runs to the end; another seed
// walks otherwise.
TEST(HostWrites, AWalkStepsWithinItsBoundsToTheEnd) {
  const spec::InitSpec flags = bound_fill("set(zeros, 1, 0, walk(8, 1, 17))");
  const auto values = written_fill("int32", flags, 10000, 3);
  std::vector<int> marked;
  for (int i = 0; i < 10000; ++i) {
    if (values[i] == 1) marked.push_back(i);
  }
  ASSERT_GT(marked.size(), 500u);
  EXPECT_EQ(marked[0], 0);
  EXPECT_EQ(marked[1], 8);
  std::set<int> steps;
  for (std::size_t k = 2; k < marked.size(); ++k) steps.insert(marked[k] - marked[k - 1]);
  EXPECT_EQ(*steps.begin(), 1);
  EXPECT_EQ(*steps.rbegin(), 16);
  EXPECT_GT(marked.back(), 10000 - 17);
  EXPECT_NE(values, written_fill("int32", flags, 10000, 4));
  EXPECT_EQ(values, written_fill("int32", flags, 10000, 3));
}

// cat(...): each run within its own fill's range, in order.
TEST(HostWrites, CatLaysItsRunsEndToEnd) {
  const auto weights = written_fill("float32", bound_fill("cat(uniform(0.8, 1.2):100, zeros:50, normal(0, 0.02):1000, full(3):2)"),
                                1152, 2);
  for (int i = 0; i < 100; ++i) EXPECT_TRUE(weights[i] >= 0.8 && weights[i] <= 1.2) << i;
  for (int i = 100; i < 150; ++i) EXPECT_EQ(weights[i], 0.0) << i;
  EXPECT_LT(*std::max_element(weights.begin() + 150, weights.begin() + 1150), 0.1);
  EXPECT_NE(weights[150], weights[151]);
  EXPECT_EQ(weights[1150], 3.0);
  EXPECT_EQ(weights[1151], 3.0);
  EXPECT_TRUE(bound_fill("cat(zeros:1)").host_written());
}

// halves(F, n): the second half of each row of n the first half again; the first half as drawn.
TEST(HostWrites, HalvesCopiesTheFirstHalfOfEachRow) {
  const auto drawn = written_fill("float32", bound_fill("normal"), 24, 6);
  const auto table = written_fill("float32", bound_fill("halves(normal, 6)"), 24, 6);
  for (int row = 0; row < 4; ++row) {
    for (int j = 0; j < 3; ++j) {
      EXPECT_EQ(table[row * 6 + j], drawn[row * 6 + j]);
      EXPECT_EQ(table[row * 6 + 3 + j], drawn[row * 6 + j]);
    }
  }
}

}  // namespace
}  // namespace kopt::run
