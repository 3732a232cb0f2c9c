#include "kopt/loop/experiment_record.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "kopt/core/error.hpp"
#include "kopt/core/files.hpp"
#include "kopt/loop/run_loop.hpp"
#include "kopt/loop/simulated_lab.hpp"
#include "loop_fixtures.hpp"

namespace kopt::loop {
namespace {
namespace fs = std::filesystem;
using ::testing::HasSubstr;

constexpr const char* kGood =
    R"({"hypothesis": "bigger tiles reuse each load more", "expected_gain_percent": [10, 40], "cost": "more registers"})";

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

class ExperimentRecords : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = std::make_unique<TempDir>("record-test"); }
  fs::path branch() const { return dir_->path() / "b1"; }
  std::string error_for(const std::string& content) {
    write_file_atomic(branch() / "experiment.json", content);
    return error_of([&] { read_experiment_record(branch()); });
  }
  std::unique_ptr<TempDir> dir_;
};

TEST_F(ExperimentRecords, ReadsAWellFormedRecord) {
  write_file_atomic(branch() / "experiment.json", kGood);
  const ExperimentRecord r = read_experiment_record(branch());
  EXPECT_EQ(r.hypothesis, "bigger tiles reuse each load more");
  EXPECT_DOUBLE_EQ(r.expected_gain_low, 10);
  EXPECT_DOUBLE_EQ(r.expected_gain_high, 40);
  EXPECT_EQ(r.cost, "more registers");
}

TEST_F(ExperimentRecords, RefusesEachMalformedRecordWithOneLineNamingTheFileAndTheField) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"{", "not valid JSON"},
      {"[]", "must be a JSON object"},
      {R"({"expected_gain_percent": [1, 2], "cost": "c"})", "\"hypothesis\" must be a text"},
      {R"({"hypothesis": "  ", "expected_gain_percent": [1, 2], "cost": "c"})", "\"hypothesis\" is empty"},
      {R"({"hypothesis": "h", "expected_gain_percent": 5, "cost": "c"})", "\"expected_gain_percent\" must be [low, high]"},
      {R"({"hypothesis": "h", "expected_gain_percent": [30, 10], "cost": "c"})", "the low end is above the high end"},
      {R"({"hypothesis": "h", "expected_gain_percent": [1, 2]})", "\"cost\" must be a text"},
      {R"({"schema": "kopt.experiment/9", "hypothesis": "h", "expected_gain_percent": [1, 2], "cost": "c"})",
       "is not kopt.experiment/1"},
  };
  for (const auto& [content, expected] : cases) {
    const std::string error = error_for(content);
    EXPECT_THAT(error, HasSubstr("experiment.json")) << content;
    EXPECT_THAT(error, HasSubstr(expected)) << content;
    EXPECT_EQ(error.find('\n'), std::string::npos) << content;
  }
}

TEST_F(ExperimentRecords, ABranchWithoutARecordIsNamed) {
  EXPECT_THAT(error_of([&] { read_experiment_record(branch()); }), HasSubstr("b1/experiment.json: missing"));
  EXPECT_FALSE(experiment_record_if_any(branch()).has_value());
}

TEST_F(ExperimentRecords, CloseRequiresOneBesideEveryBranchOfTheOpenIteration) {
  SimulatedLab lab(kModel);
  const RunFolder run(dir_->path() / "run");
  init_run(lab, {.kernel = kKernel, .settings = {.iterations = 2}, .run_dir = run.root()});
  write_file_atomic(run.branches(1) / "b1" / "variant.json", R"({"defines": {"BM": "64"}})");
  write_file_atomic(run.branches(1) / "b2" / "variant.json", R"({"defines": {"BM": "128"}})");
  write_file_atomic(run.branches(1) / "b1" / "experiment.json", kGood);
  EXPECT_THAT(error_of([&] { require_experiment_records(run); }), HasSubstr("b2/experiment.json: missing"));
  write_file_atomic(run.branches(1) / "b2" / "experiment.json", kGood);
  EXPECT_NO_THROW(require_experiment_records(run));
}

}  // namespace
}  // namespace kopt::loop
