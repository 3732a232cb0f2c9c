#include "kopt/core/hash.hpp"

#include <gtest/gtest.h>

namespace kopt {
namespace {

TEST(ContentHash, IsStableAndHex) {
  std::string hash = content_hash("kopt");
  EXPECT_EQ(hash.size(), 32u);
  EXPECT_EQ(hash, content_hash("kopt"));
  EXPECT_EQ(hash.find_first_not_of("0123456789abcdef"), std::string::npos);
}

TEST(ContentHash, PartsAreLengthPrefixed) {
  EXPECT_NE(ContentHasher().add("ab").add("c").hex(), ContentHasher().add("a").add("bc").hex());
  EXPECT_NE(content_hash(""), ContentHasher().add("").add("").hex());
}

}  // namespace
}  // namespace kopt
