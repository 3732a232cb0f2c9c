#include "kopt/spec/tool_arguments.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "kopt/core/error.hpp"

namespace kopt::spec {
namespace {

using ::testing::HasSubstr;

std::string refusal_of(const std::function<void()>& check) {
  try {
    check();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::bad_input);
    return e.what();
  }
  return "";
}

TEST(ToolArguments, PlainDefinesAndFlagsPass) {
  EXPECT_NO_THROW(check_define("BM", "128", "-D"));
  EXPECT_NO_THROW(check_define("_T2", "-1.5f", "-D"));
  EXPECT_NO_THROW(check_define("KOPT_USE_X", "", "-D"));
  EXPECT_NO_THROW(check_compiler_flags({"-Xcompiler", "-fPIC,-O2", "--use_fast_math", "-I/opt/inc", "-maxrregcount=64"},
                                       "[build] flags"));
}

TEST(ToolArguments, EveryShellMetacharacterInAValueIsRefusedAndNamed) {
  for (std::string_view bad : {"$(id)", "`id`", "1;id", "1|id", "1&id", "1\nid", "\"1\"", "'1'", "1\\n", "1>f",
                               "1<f", "a b", "1\tb", "*", "{a,b}", "~", "#", "!x", "(1)", "1^2"}) {
    SCOPED_TRACE(std::string(bad));
    EXPECT_THAT(refusal_of([&] { check_define("X", bad, "-D"); }), HasSubstr("-D: the value of X"));
    EXPECT_THAT(refusal_of([&] { check_compiler_flags({"-O2", std::string("-DY=") + std::string(bad)}, "[build] flags"); }),
                HasSubstr("[build] flags: flag"));
  }
  EXPECT_THAT(refusal_of([] { check_define("X", "1\n", "-D"); }), HasSubstr("a newline"));
  EXPECT_THAT(refusal_of([] { check_define("X", "$x", "-D"); }), HasSubstr("holds '$'"));
  EXPECT_THAT(refusal_of([] { check_define("X", std::string("a\x07"), "-D"); }), HasSubstr("control byte 0x07"));
}

TEST(ToolArguments, DefineNamesAreIdentifiers) {
  for (std::string_view bad : {"", "1X", "BM; touch f", "A-B", "A=B", "$(x)", "A B"}) {
    EXPECT_THAT(refusal_of([&] { check_define(bad, "1", "b1/variant.json"); }),
                HasSubstr("b1/variant.json: define name"));
  }
}

TEST(ToolArguments, FlagsThatChooseAProgramOrAnOutputAreRefused) {
  for (const std::vector<std::string>& flags :
       std::vector<std::vector<std::string>>{{"-ccbin", "/tmp"}, {"-ccbin=/tmp"}, {"--compiler-bindir=/x"},
                                             {"-o", "x.so"}, {"-Xcompiler", "-O2,-fplugin=/x.so"},
                                             {"-Xcompiler", "-B/tmp/evil"}, {"--run"}, {"-Xlinker", "-rpath"}}) {
    EXPECT_THAT(refusal_of([&] { check_compiler_flags(flags, "[build] flags"); }), HasSubstr("which chooses a program"));
  }
  // Options that merely start like a refused one are not refused.
  EXPECT_NO_THROW(check_compiler_flags({"-odir-like-name"}, "[build] flags"));
}

TEST(ToolArguments, ArchitecturesAreTheFormsKoptCompilesFor) {
  for (std::string_view good : {"sm_90", "sm_90a", "sm_100f", "sm_120"}) EXPECT_TRUE(is_sm_arch(good)) << good;
  for (std::string_view bad : {"sm_9", "sm_90;id", "sm_90 ", "sm_90ab", "compute_90x", "native", "sm_$(x)"}) {
    EXPECT_FALSE(is_sm_arch(bad)) << bad;
  }
  EXPECT_THAT(refusal_of([] { check_arch("sm_90;id", "--arch"); }), HasSubstr("--arch: unknown target architecture"));
}

}  // namespace
}  // namespace kopt::spec
