#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "kopt/core/files.hpp"
#include "kopt/report/sass_table.hpp"
#include "kopt/sass/sass_parser.hpp"

namespace kopt::report {
namespace {
using ::testing::HasSubstr;

sass::KernelSass fixture_sass() {
  sass::KernelSass k{.kernel = "sgemm_naive.cu", .arch = "sm_90"};
  k.dump = sass::parse_cuobjdump_sass(
      read_file(std::string(KOPT_FIXTURES_DIR) + "/sass/cuobjdump13.0_sm90_sgemm_naive.txt"));
  k.profile = sass::profile_dump(k.dump);
  return k;
}

TEST(SassReport, OneKernelIsItsProfileAndItsMethods) {
  const sass::KernelSass k = fixture_sass();
  const SassReport out = sass_report({"examples/sgemm_naive", k}, {}, std::nullopt);
  EXPECT_EQ(out.document.at("schema"), "kopt.sass/1");
  EXPECT_EQ(out.document.at("kernel").at("kernel"), "examples/sgemm_naive");
  EXPECT_FALSE(out.document.contains("vs"));
  EXPECT_EQ(out.text.find("--vs"), std::string::npos);
}

// With --vs, each function the two kernels share is paired, and its opcode differences are in
// the document and the text alike.
TEST(SassReport, WithASecondKernelPairsTheirFunctions) {
  const sass::KernelSass a = fixture_sass();
  const sass::KernelSass b = fixture_sass();
  const SassReport out = sass_report({"a", a}, {}, NamedSass{"b", b});
  EXPECT_EQ(out.document.at("vs").at("kernel"), "b");
  ASSERT_EQ(out.document.at("diff").size(), a.profile.functions.size());
  const nlohmann::json& opcodes = out.document.at("diff").at(0).at("opcodes");
  ASSERT_FALSE(opcodes.empty());  // every opcode of either, unchanged ones too
  for (const nlohmann::json& row : opcodes) EXPECT_EQ(row.at("delta"), 0) << row.dump();  // the same code
  EXPECT_THAT(out.text, HasSubstr("\n--vs b\n"));
}

}  // namespace
}  // namespace kopt::report
