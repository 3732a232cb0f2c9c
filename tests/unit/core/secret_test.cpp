#include "kopt/core/secret.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <set>

namespace kopt {
namespace {

// The timed calls' seeds (measure/timed_call_inputs.hpp): each draw is new, none is a constant
// or a counter a kernel could run ahead of. 1,000 draws of 64 bits repeat with odds ~3e-14.
TEST(FreshSecret, EveryDrawIsNewAndEveryBitVaries) {
  std::set<std::uint64_t> seen;
  std::uint64_t ones = 0, zeros = 0;
  for (int i = 0; i < 1000; ++i) {
    const std::uint64_t value = fresh_secret_64();
    seen.insert(value);
    ones |= value;
    zeros |= ~value;
  }
  EXPECT_EQ(seen.size(), 1000u);
  EXPECT_EQ(ones, ~std::uint64_t{0});
  EXPECT_EQ(zeros, ~std::uint64_t{0});
}

TEST(SecretSeed, FitsInA48BitJsonNumber) {
  for (int i = 0; i < 100; ++i) EXPECT_LT(secret_seed(), std::uint64_t{1} << 48);
}

}  // namespace
}  // namespace kopt
