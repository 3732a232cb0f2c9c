#include "kopt/loop/frozen_inputs.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "kopt/core/error.hpp"
#include "kopt/core/files.hpp"
#include "kopt/loop/final_audit.hpp"
#include "kopt/loop/run_loop.hpp"
#include "kopt/loop/simulated_lab.hpp"
#include "loop_fixtures.hpp"

namespace kopt::loop {
namespace {
namespace fs = std::filesystem;
using json = nlohmann::json;
using ::testing::HasSubstr;

const fs::path kExamples = fs::path(KOPT_SOURCE_DIR) / "examples";

// A copy of the tiled SGEMM (its reference in its own folder), so that a test may change it.
class FrozenInputs : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::make_unique<TempDir>("frozen-test");
    fs::create_directories(dir_->path() / "examples");
    fs::copy(kExamples / "sgemm_tiled", kernel_dir(), fs::copy_options::recursive);
    run_ = std::make_unique<RunFolder>(dir_->path() / "run");
    init_run(lab_, {.kernel = kernel_dir(), .settings = {.iterations = 2}, .run_dir = run_->root()});
  }
  fs::path kernel_dir() const { return dir_->path() / "examples" / "sgemm_tiled"; }
  fs::path spec() const { return kernel_dir() / "kopt.toml"; }
  fs::path reference() const { return kernel_dir() / "ref.cu"; }
  static std::string error_of(const std::function<void()>& f) {
    try {
      f();
    } catch (const Error& e) {
      return e.what();
    }
    return "";
  }

  SimulatedLab lab_{kModel};
  std::unique_ptr<TempDir> dir_;
  std::unique_ptr<RunFolder> run_;
};

TEST_F(FrozenInputs, InitCopiesAndHashesTheSpecTheReferenceAndTheTolerance) {
  const json frozen = read_json(run_->root() / "frozen.json");
  EXPECT_EQ(frozen["schema"], "kopt.frozen/1");
  ASSERT_EQ(frozen["files"].size(), 2u);
  EXPECT_EQ(frozen["files"][0]["role"], "spec");
  EXPECT_EQ(frozen["files"][1]["role"], "reference");
  EXPECT_EQ(read_file(run_->root() / frozen["files"][0]["copy"].get<std::string>()), read_file(spec()));
  EXPECT_EQ(read_file(run_->root() / frozen["files"][1]["copy"].get<std::string>()), read_file(reference()));
  EXPECT_DOUBLE_EQ(frozen["tolerance"]["default"]["atol"].get<double>(), 1e-2);
  EXPECT_DOUBLE_EQ(frozen["tolerance"]["default"]["rtol"].get<double>(), 1e-3);
  EXPECT_FALSE(changed_input(*run_).has_value());
}

TEST_F(FrozenInputs, AChangedSpecIsRefusedByCloseWithOneLineNamingIt) {
  write_file_atomic(spec(), read_file(spec()) + "\n# a looser tolerance, say\n");
  const std::string error = error_of([&] { close_iteration(lab_, *run_); });
  EXPECT_THAT(error, HasSubstr("spec " + spec().string() + " changed since init froze it"));
  EXPECT_EQ(error.find('\n'), std::string::npos);
  // The audit refuses as well: it would time the champion against another test set.
  EXPECT_THAT(error_of([&] { final_audit(*run_, [](const std::string&) { return std::make_unique<SimulatedLab>(kModel); }); }),
              HasSubstr("changed since init froze it"));
}

TEST_F(FrozenInputs, AChangedOrMissingReferenceIsNamed) {
  write_file_atomic(reference(), "// another reference\n");
  EXPECT_THAT(changed_input(*run_).value_or(""), HasSubstr("reference " + reference().string() + " changed"));
  fs::remove(reference());
  EXPECT_THAT(changed_input(*run_).value_or(""), HasSubstr("reference " + reference().string() + " is gone"));
}

TEST_F(FrozenInputs, ANewRunIsStartedBesideTheChangedOneOnlyOnRequest) {
  EXPECT_EQ(run_folder_to_use(run_->root(), true), run_->root());  // unchanged: resumed
  write_file_atomic(spec(), read_file(spec()) + "\n# changed\n");
  EXPECT_EQ(run_folder_to_use(run_->root(), false), run_->root());  // refused later, by the loop
  fs::path second = run_->root();
  second += "-2";
  EXPECT_EQ(run_folder_to_use(run_->root(), true), second);
  fs::path with_slash = run_->root();
  with_slash += "/";
  EXPECT_EQ(run_folder_to_use(with_slash, true), second);
}

TEST_F(FrozenInputs, ARunThatFrozeNothingIsNotChecked) {
  fs::remove(run_->root() / "frozen.json");  // as a run made before kopt froze its inputs
  write_file_atomic(spec(), read_file(spec()) + "\n# changed\n");
  EXPECT_FALSE(changed_input(*run_).has_value());
}

}  // namespace
}  // namespace kopt::loop
