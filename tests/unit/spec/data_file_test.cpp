#include "kopt/spec/data_file.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "kopt/core/error.hpp"

namespace kopt::spec {
namespace {

using ::testing::HasSubstr;

std::string data_section_error(std::string_view text, std::string_view name) {
  const toml::table root = parse_data_file(text, "data/rules.toml");
  try {
    data_section(root, "data/rules.toml", name, {"floor", "share"});
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ExitCode::environment);
    return error.what();
  }
  return "no error";
}

TEST(DataFile, RefusesAnotherSchemaVersionAndNamesTheLine) {
  EXPECT_THAT([] {
    try {
      parse_data_file("schema_version = 2\n", "data/rules.toml");
    } catch (const Error& error) {
      return std::string(error.what());
    }
    return std::string("no error");
  }(),
              HasSubstr("data/rules.toml"));
}

TEST(DataSection, IsTheTableWhoseKeysAreAllKnown) {
  const toml::table root = parse_data_file("schema_version = 1\n[rule]\nfloor = 2\nshare = 0.5\n", "data/rules.toml");
  const toml::table& rule = data_section(root, "data/rules.toml", "rule", {"floor", "share"});
  EXPECT_EQ(rule["floor"].value_or(0), 2);
}

TEST(DataSection, NamesTheFileAndTableOfAMissingOneOrAnUnknownKey) {
  EXPECT_EQ(data_section_error("schema_version = 1\n", "rule"), "data/rules.toml: missing [rule]");
  EXPECT_THAT(data_section_error("schema_version = 1\n[rule]\nflor = 2\n", "rule"),
              HasSubstr("data/rules.toml: [rule]: unknown key \"flor\" (known: floor, share)"));
}

}  // namespace
}  // namespace kopt::spec
