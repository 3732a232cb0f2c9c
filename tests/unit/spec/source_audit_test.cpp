#include "kopt/spec/source_audit.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>

namespace kopt::spec {
namespace {

bool names(const std::vector<SourceFinding>& findings, const std::string& category, int line) {
  return std::ranges::any_of(findings, [&](const SourceFinding& f) { return f.category == category && f.line == line; });
}

TEST(SourceAudit, NamesAProcPathInAStringLiteral) {
  const auto findings = audit_source("void f() {\n  FILE* f = fopen(\"/proc/self/cmdline\", \"r\");\n}\n", "kernel.cu");
  EXPECT_TRUE(names(findings, "memory_patching", 2));
  EXPECT_TRUE(names(findings, "file_access", 2));
}

TEST(SourceAudit, IgnoresAProcPathInALineComment) {
  const auto findings = audit_source("// we never read /proc/self/mem here\nvoid f() {}\n", "kernel.cu");
  EXPECT_TRUE(findings.empty()) << findings.front().category;
}

TEST(SourceAudit, IgnoresForbiddenNamesInABlockComment) {
  const auto findings = audit_source("/* unlike a cheat, no getenv(\"X\") and no\n   /proc/self/maps */\nint x;\n", "k.cu");
  EXPECT_TRUE(findings.empty()) << findings.front().category;
}

TEST(SourceAudit, ACommentAfterCodeHidesOnlyItself) {
  const auto findings = audit_source("const char* p = \"/proc/self/mem\";  // not /proc/ again\n", "kernel.cu");
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].category, "memory_patching");
  EXPECT_EQ(findings[0].text, "const char* p = \"/proc/self/mem\";  // not /proc/ again");
}

TEST(SourceAudit, AStringThatLooksLikeACommentIsStillAString) {
  // "//" inside a literal opens no comment: the path after it is still read.
  const auto findings = audit_source("const char* p = \"file:///proc/self/mem\";\n", "kernel.cu");
  EXPECT_TRUE(names(findings, "memory_patching", 1));
}

TEST(SourceAudit, NamesACallInCodeButNotInAComment) {
  const auto findings = audit_source("// getenv(\"KOPT\") is what cheats do\nconst char* v = getenv(\"KOPT\");\n", "k.cu");
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].category, "environment");
  EXPECT_EQ(findings[0].line, 2);
}

}  // namespace
}  // namespace kopt::spec
