#include <gtest/gtest.h>

#include "kopt/catalog/sass_signature.hpp"
#include "kopt/core/files.hpp"
#include "kopt/sass/sass_parser.hpp"
#include "kopt/sass/sass_profile.hpp"

namespace kopt::sass {
namespace {

// A Blackwell (sm_100a) dump, compiled and disassembled without a GPU.
SassDump sm100_dump() {
  return parse_cuobjdump_sass(read_file(std::string(KOPT_FIXTURES_DIR) + "/sass/cuobjdump13.5_sm100a_block_sum.txt"));
}

TEST(SassSm100, ParsesEveryLineOfABlackwellDump) {
  const SassDump dump = sm100_dump();
  EXPECT_TRUE(dump.unparsed.empty()) << dump.unparsed.size() << " unparsed, first: "
                                     << (dump.unparsed.empty() ? "" : dump.unparsed.front().text);
  const SassFunction* f = dump.find("block_sum");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->arch, "sm_100a");
  EXPECT_GT(f->instructions.size(), 40u);
}

TEST(SassSm100, ItsSignaturesAreFound) {
  const SassProfile profile = profile_dump(sm100_dump());
  const catalog::SignatureTable table = catalog::load_sass_signatures();
  for (const char* id : {"ldg_readonly", "warp_shuffle", "shared_memory", "global_atomic"}) {
    EXPECT_EQ(catalog::match_signature(table, id, profile.functions, 100).status, catalog::SignatureStatus::found) << id;
  }
  EXPECT_EQ(catalog::match_signature(table, "mma_sync", profile.functions, 100).status,
            catalog::SignatureStatus::missing);
}

}  // namespace
}  // namespace kopt::sass
