#include "kopt/measure/round_order.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <vector>

namespace kopt::measure {
namespace {

TEST(RoundOrder, EveryRoundIsAPermutation) {
  RoundOrder order(42, 0, 5);
  for (int round = 0; round < 100; ++round) {
    std::vector<std::size_t> seen = order.next();
    std::sort(seen.begin(), seen.end());
    std::vector<std::size_t> all(5);
    std::iota(all.begin(), all.end(), std::size_t{0});
    EXPECT_EQ(seen, all);
  }
}

// No variant keeps a position: over 6,000 rounds of 3, each is first about a third of the
// time, and A follows B about as often as B follows A.
TEST(RoundOrder, EveryVariantTakesEveryPositionAboutEquallyOften) {
  RoundOrder order(7, 0, 3);
  const int rounds = 6000;
  std::vector<std::vector<int>> at(3, std::vector<int>(3, 0));  // at[variant][position]
  int a_then_b = 0, b_then_a = 0;
  for (int round = 0; round < rounds; ++round) {
    const std::vector<std::size_t>& o = order.next();
    for (std::size_t p = 0; p < o.size(); ++p) ++at[o[p]][p];
    for (std::size_t p = 0; p + 1 < o.size(); ++p) {
      a_then_b += o[p] == 0 && o[p + 1] == 1;
      b_then_a += o[p] == 1 && o[p + 1] == 0;
    }
  }
  for (const auto& positions : at) {
    for (int count : positions) EXPECT_NEAR(count, rounds / 3, 150);  // ~4 standard deviations
  }
  EXPECT_NEAR(a_then_b, b_then_a, 200);
}

TEST(RoundOrder, TheSeedReproducesTheOrderAndTheCaseChangesIt) {
  RoundOrder a(99, 0, 4), b(99, 0, 4), other_case(99, 1, 4), other_seed(100, 0, 4);
  int same_case = 0, same_seed = 0;
  for (int round = 0; round < 50; ++round) {
    const std::vector<std::size_t> first = a.next();
    EXPECT_EQ(first, b.next());
    same_case += first == other_case.next();
    same_seed += first == other_seed.next();
  }
  EXPECT_LT(same_case, 10);  // 1 in 24 by chance
  EXPECT_LT(same_seed, 10);
}

TEST(RoundOrder, OneVariantIsAlwaysFirst) {
  RoundOrder order(1, 0, 1);
  EXPECT_EQ(order.next(), std::vector<std::size_t>{0});
}

}  // namespace
}  // namespace kopt::measure
