#include "kopt/loop/run_documents.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "kopt/core/error.hpp"

namespace kopt::loop {
namespace {

using json = nlohmann::json;
using ::testing::HasSubstr;

TEST(RunDocuments, AStampedDocumentSaysItsSchemaAndKeepsTheRest) {
  const json stamped = with_schema(kMeasurementSchema, {{"variants", json::array()}, {"outcomes", json::array()}});
  EXPECT_EQ(stamped.at("schema"), kMeasurementSchema);
  EXPECT_TRUE(stamped.at("outcomes").is_array());
  EXPECT_NO_THROW(require_schema(stamped, kMeasurementSchema, "screen.json"));
}

// A run folder written before documents carried a schema still resumes.
TEST(RunDocuments, ADocumentWithoutASchemaIsReadAsVersionOne) {
  EXPECT_NO_THROW(require_schema({{"outcomes", json::array()}}, kMeasurementSchema, "screen.json"));
}

TEST(RunDocuments, AnotherVersionOrKindIsRefusedNamingBoth) {
  try {
    require_schema({{"schema", "kopt.measurement/2"}}, kMeasurementSchema, "run/iter1/screen.json");
    FAIL() << "a newer version was read";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::bad_input);
    EXPECT_THAT(e.what(), HasSubstr("run/iter1/screen.json: \"kopt.measurement/2\" is not kopt.measurement/1"));
  }
  EXPECT_THROW(require_schema({{"schema", "kopt.ablation/1"}}, kMeasurementSchema, "screen.json"), Error);
  EXPECT_THROW(require_schema(json::array(), kMeasurementSchema, "screen.json"), Error);
}

}  // namespace
}  // namespace kopt::loop
