#include "kopt/catalog/plan_inputs.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "kopt/core/error.hpp"
#include "kopt/core/files.hpp"
#include "catalog_fixtures.hpp"

namespace kopt::catalog {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;


TEST(PlanInputs, TheProfilesArchitectureAndDtypeUnlessOverridden) {
  const PlanInputs inputs = read_plan_inputs({.profile = kEvidence / "profile.json", .roofline = kEvidence / "roofline.json"}, {});
  EXPECT_EQ(inputs.arch, 90);
  EXPECT_EQ(inputs.fp32_exact, std::optional(inputs.dtype == "fp32"));
  const PlanInputs overridden = read_plan_inputs(
      {.profile = kEvidence / "profile.json", .roofline = kEvidence / "roofline.json"},
      {.arch = "sm_100a", .dtype = "fp16", .fp32_exact = false});
  EXPECT_EQ(overridden.arch, 100);
  EXPECT_EQ(overridden.dtype, "fp16");
  EXPECT_EQ(overridden.fp32_exact, std::optional(false));
}

// `kopt plan` and the loop's plan step both read through here: neither guesses sm_90.
TEST(PlanInputs, AProfileWithoutAnArchitectureIsRefusedNamingIt) {
  TempDir dir("plan-inputs");
  nlohmann::json profile = nlohmann::json::parse(read_file(kEvidence / "profile.json"));
  profile.erase("arch");
  write_file_atomic(dir.path() / "profile.json", profile.dump());
  try {
    read_plan_inputs({.profile = dir.path() / "profile.json", .roofline = kEvidence / "roofline.json"}, {});
    FAIL() << "no architecture was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::bad_input);
    EXPECT_THAT(e.what(), HasSubstr("profile.json names no architecture; give --arch sm_XX"));
  }
  EXPECT_EQ(read_plan_inputs({.profile = dir.path() / "profile.json", .roofline = kEvidence / "roofline.json"},
                             {.arch = "sm_90"}).arch,
            90);
}

}  // namespace
}  // namespace kopt::catalog
