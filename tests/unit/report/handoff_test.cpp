#include "kopt/report/handoff.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "kopt/core/files.hpp"
#include "kopt/loop/run_loop.hpp"
#include "kopt/loop/simulated_lab.hpp"

namespace kopt::report {
namespace {
namespace fs = std::filesystem;
using json = nlohmann::json;
using ::testing::HasSubstr;

const fs::path kModel = fs::path(KOPT_FIXTURES_DIR) / "loop" / "sgemm_tiled_model.json";
const fs::path kKernel = fs::path(KOPT_SOURCE_DIR) / "examples" / "sgemm_tiled";

// One closed iteration of the simulated SGEMM: a winner, a branch that failed its check, one
// that lost and expected far more than it gained, and one without a record.
TEST(Handoff, HoldsEachBranchAgainstItsRecordAndAsksWhatTheMeasurementsLeaveOpen) {
  TempDir dir("handoff-test");
  loop::SimulatedLab lab(kModel);
  const loop::RunFolder run(dir.path() / "run");
  loop::init_run(lab, {.kernel = kKernel, .settings = {.iterations = 2}, .run_dir = run.root()});
  const std::vector<std::pair<json, json>> branches = {
      {{{"BM", "128"}, {"BN", "128"}, {"TM", "8"}, {"TN", "8"}},
       {{"hypothesis", "big tiles reuse loads"}, {"expected_gain_percent", {100, 2000}}, {"cost", "registers"}}},
      {{{"BK", "32"}}, {{"hypothesis", "deeper k tiles"}, {"expected_gain_percent", {5, 10}}, {"cost", "smem"}}},
      {{{"VEC", "2"}}, {{"hypothesis", "wider loads"}, {"expected_gain_percent", {30, 60}}, {"cost", "alignment"}}},
      {{{"STAGES", "2"}}, nullptr}};
  for (std::size_t k = 0; k < branches.size(); ++k) {
    const fs::path b = run.branches(1) / ("b" + std::to_string(k + 1));
    write_file_atomic(b / "variant.json", json{{"defines", branches[k].first}}.dump());
    if (!branches[k].second.is_null()) write_file_atomic(b / "experiment.json", branches[k].second.dump());
  }
  write_file_atomic(run.iteration(1) / "methods.json", R"({"methods": []})");
  loop::close_iteration(lab, run);

  const std::string md = format_handoff(write_handoff(run));
  EXPECT_TRUE(fs::exists(run.root() / "handoff.md"));
  const std::size_t worked = md.find("## What worked"), did_not = md.find("## What did not, and why"),
                    open = md.find("## Open questions"), next = md.find("## Next step");
  ASSERT_TRUE(worked < did_not && did_not < open && open < next);
  EXPECT_THAT(md.substr(worked, did_not - worked), HasSubstr("iter 1 b1 (BM=128 BN=128 TM=8 TN=8): \"big tiles reuse loads\""));
  const std::string lost = md.substr(did_not, open - did_not);
  EXPECT_THAT(lost, HasSubstr("iter 1 b2 (BK=32): \"deeper k tiles\""));
  EXPECT_THAT(lost, HasSubstr("failed: wrong result"));
  EXPECT_THAT(lost, HasSubstr("iter 1 b3 (VEC=2)"));
  const std::string questions = md.substr(open, next - open);
  // VEC=2 is 5 % faster in the model: below the 30 to 60 % its record expected.
  EXPECT_THAT(questions, HasSubstr("iter 1 b3: expected 30 to 60 % faster, measured +"));
  EXPECT_THAT(questions, HasSubstr("was the hypothesis (\"wider loads\") wrong, or its implementation?"));
  EXPECT_THAT(questions, HasSubstr("iter 1 b4: no experiment record"));
  EXPECT_THAT(questions, HasSubstr("not audited yet"));
  EXPECT_THAT(md, HasSubstr("Iteration 2 of at most 2 is open"));
  EXPECT_THAT(md.substr(next), HasSubstr("Run `kopt close " + run.root().string()));
}

}  // namespace
}  // namespace kopt::report
