#include "kopt/catalog/plan_step.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "kopt/catalog/planner.hpp"
#include "kopt/core/error.hpp"
#include "kopt/core/files.hpp"
#include "catalog_fixtures.hpp"

namespace kopt::catalog {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;


class PlanStepTest : public ::testing::Test {
 protected:
  TempDir dir{"plan-step"};
  const MethodCatalog methods = load_method_catalog();
  const PlanInputs inputs =
      read_plan_inputs({.profile = kEvidence / "profile.json", .roofline = kEvidence / "roofline.json"}, {});

  fs::path methods_file(const nlohmann::json& ids) {
    write_file_atomic(dir.path() / "methods.json", nlohmann::json{{"methods", ids}}.dump());
    return dir.path() / "methods.json";
  }
};

// `kopt plan DIR` and the loop's plan.json are the same document for the same evidence.
TEST_F(PlanStepTest, WithEvidenceThePlanIsThePlanners) {
  EXPECT_EQ(plan_document(methods, inputs), nlohmann::json(plan_methods(methods, inputs)));
}

TEST_F(PlanStepTest, WithoutEvidenceThePlanIsEmptyAndSaysSo) {
  const nlohmann::json plan = plan_document(methods, std::nullopt);
  EXPECT_TRUE(plan.at("degraded_evidence").get<bool>());
  EXPECT_TRUE(plan.at("axes").empty());
}

TEST_F(PlanStepTest, AnUnknownIdIsAViolationWithOrWithoutEvidence) {
  const fs::path file = methods_file({"memory.no_such_method"});
  for (const std::optional<PlanInputs>& evidence : {std::optional(inputs), std::optional<PlanInputs>()}) {
    const MethodsCheck check = check_methods_file(file, methods, evidence);
    EXPECT_FALSE(check.ok());
    ASSERT_EQ(check.violations.size(), 1u);
    EXPECT_EQ(check.violations.front().rule, "unknown_id");
  }
}

TEST_F(PlanStepTest, TheCheckDocumentNamesTheFileAndEveryViolation) {
  const fs::path file = methods_file({"memory.no_such_method"});
  const nlohmann::json document = methods_check_json(check_methods_file(file, methods, inputs), file.string());
  EXPECT_EQ(document.at("schema"), "kopt.methods_check/1");
  EXPECT_FALSE(document.at("ok").get<bool>());
  EXPECT_EQ(document.at("violations").size(), 1u);
}

TEST_F(PlanStepTest, AMalformedFileIsBadInput) {
  write_file_atomic(dir.path() / "methods.json", "{");
  try {
    check_methods_file(dir.path() / "methods.json", methods, std::nullopt);
    FAIL() << "a malformed methods.json was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::bad_input);
    EXPECT_THAT(e.what(), HasSubstr("methods.json: not valid JSON"));
  }
}

TEST_F(PlanStepTest, EvidenceFilesComeFromTheFolderUnlessGiven) {
  const PlanEvidenceFiles in_folder = plan_evidence_files(kEvidence, {});
  EXPECT_EQ(in_folder.profile, kEvidence / "profile.json");
  EXPECT_EQ(in_folder.roofline, kEvidence / "roofline.json");
  EXPECT_EQ(in_folder.history.has_value(), fs::exists(kEvidence / "history.json"));
  const PlanEvidenceFiles given = plan_evidence_files(kEvidence, {.profile = "p.json", .history = fs::path("h.json")});
  EXPECT_EQ(given.profile, "p.json");
  EXPECT_EQ(given.history, fs::path("h.json"));
  try {
    plan_evidence_files("", {.profile = "p.json"});
    FAIL() << "no roofline.json was named, and none was looked for";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("give a run folder or --roofline FILE"));
  }
}

}  // namespace
}  // namespace kopt::catalog
