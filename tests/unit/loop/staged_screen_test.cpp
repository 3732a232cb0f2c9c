// The staged screen on the simulated lab: a first look at every branch, the full check and
// interleaved timing only for the promising ones, and nothing in the finals that skipped it.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "kopt/core/files.hpp"
#include "kopt/loop/close_steps.hpp"
#include "kopt/loop/compile_queue.hpp"
#include "kopt/loop/run_loop.hpp"
#include "kopt/loop/screen_settings.hpp"
#include "kopt/loop/simulated_lab.hpp"
#include "loop_fixtures.hpp"

namespace kopt::loop {
namespace {
namespace fs = std::filesystem;
using json = nlohmann::json;


// Twelve branches: fast ones (big tiles), slow ones (small tiles), and one that fails (BK=32).
RunFolder twelve_branches(const fs::path& dir, SimulatedLab& lab) {
  init_run(lab, {.kernel = kKernel, .settings = {.iterations = 2, .branches = 12, .finalists = 2}, .run_dir = dir});
  const RunFolder run(dir);
  const std::vector<json> defines = {
      {{"BM", "128"}, {"BN", "128"}, {"TM", "8"}, {"TN", "8"}}, {{"BM", "64"}},
      {{"BK", "32"}},                                            {{"VEC", "2"}},
      {{"BM", "128"}, {"BN", "128"}, {"TM", "4"}, {"TN", "8"}}, {{"STAGES", "2"}},
      {{"BM", "64"}, {"BN", "64"}, {"TM", "4"}, {"TN", "4"}},   {{"BK", "16"}},
      {{"BM", "128"}, {"BN", "64"}, {"TM", "8"}, {"TN", "8"}},  {{"VEC", "4"}},
      {{"BN", "64"}},                                            {{"TM", "2"}}};
  for (std::size_t k = 0; k < defines.size(); ++k) {
    write_file_atomic(run.branches(1) / ("b" + std::to_string(k + 1)) / "variant.json", json{{"defines", defines[k]}}.dump());
  }
  write_file_atomic(run.iteration(1) / "methods.json", R"({"methods": ["compute.register_tiling"]})");
  return run;
}

VariantOutcome looked(double median, bool passed = true) {
  return {.label = "v", .passed = passed, .failure = passed ? "" : "wrong", .median = median};
}

TEST(Promising, WithinTheShareOfTheBestFastestFirstAtMostTheLimit) {
  const std::vector<VariantOutcome> look = {looked(1.0), looked(0.8), looked(1.05), looked(1.2), looked(0.5, false),
                                            looked(0.6), looked(1.1)};
  EXPECT_EQ(promising(look, 9, 0.10), (std::vector<std::size_t>{5, 1, 2, 6}));  // 1.2 is out, the failure too
  EXPECT_EQ(promising(look, 2, 0.10), (std::vector<std::size_t>{5, 1}));
  EXPECT_TRUE(promising({looked(1.0), looked(1.5)}, 4, 0.10).empty());
}

TEST(StagedScreen, OnlyThePromisingAreCheckedInFullAndOnlyTheyReachTheFinals) {
  TempDir dir("staged");
  SimulatedLab lab(kModel);
  const RunFolder run = twelve_branches(dir.path() / "run", lab);
  const int measured_before = lab.variants_measured();
  const json verdict = close_iteration(lab, run);

  EXPECT_EQ(lab.variants_first_looked(), 13);  // the best and every branch
  const json look = read_json(run.iteration(1) / "first_look.json");
  EXPECT_EQ(look["outcomes"].size(), 13u);
  EXPECT_TRUE(fs::exists(run.iteration(1) / "first_look_bench.json"));

  const std::vector<VariantOutcome> screened = outcomes_of(read_json(run.iteration(1) / "screen.json"));
  int full = 0;
  for (std::size_t k = 1; k < screened.size(); ++k) {
    const VariantOutcome& o = screened[k];
    if (o.stage.empty()) {
      ++full;
      EXPECT_TRUE(o.first_look_median.has_value()) << o.label;
    } else {
      EXPECT_EQ(o.stage, "first_look");
      EXPECT_FALSE(o.passed) << o.label;
    }
  }
  EXPECT_LE(full, 4);  // at most finalists (2) times the factor (2)
  EXPECT_GE(full, 1);
  // The full screen measured the best and the promoted branches, nothing else.
  EXPECT_EQ(lab.variants_measured() - measured_before, 1 + full + /* finals */ static_cast<int>(
      read_json(run.iteration(1) / "finals.json")["outcomes"].size()) + static_cast<int>(
      read_json(run.iteration(1) / "ablation.json")["outcomes"].size()));
  // BK=32 fails in the model: it stopped at the first look, with its cause.
  EXPECT_THAT(screened.at(3).failure, ::testing::StartsWith("at the first look: wrong result"));
  // Every finalist went through the full stage.
  for (const json& v : read_json(run.iteration(1) / "finals.json")["variants"]) {
    for (const VariantOutcome& o : screened) {
      if (o.label == v["label"]) EXPECT_TRUE(o.stage.empty()) << o.label;
    }
  }
  EXPECT_EQ(verdict["verdict"], "advanced");
  const json stages = verdict["time"]["stages"];
  EXPECT_EQ(stages["first_look"]["candidates"], 12);
  EXPECT_EQ(stages["full_check"]["candidates"], full);
  EXPECT_TRUE(stages.contains("finals"));
  EXPECT_TRUE(stages.contains("ablation"));
}

TEST(StagedScreen, NothingPromisingIsNoGainNotAllFailed) {
  TempDir dir("staged");
  SimulatedLab lab(kModel);
  init_run(lab, {.kernel = kKernel, .settings = {.iterations = 2, .branches = 8, .finalists = 1},
                 .run_dir = dir.path() / "run"});
  const RunFolder run(dir.path() / "run");
  // Every branch slower than the baseline by far (KOPT_USE_SMEM_TILING=0 doubles the time).
  for (int k = 1; k <= 8; ++k) {
    write_file_atomic(run.branches(1) / ("b" + std::to_string(k)) / "variant.json",
                      json{{"defines", {{"KOPT_USE_SMEM_TILING", "0"}, {"MINB", std::to_string(k)}}}}.dump());
  }
  write_file_atomic(run.iteration(1) / "methods.json", R"({"methods": []})");
  const json verdict = close_iteration(lab, run);
  EXPECT_EQ(verdict["verdict"], "no_gain");
  EXPECT_FALSE(fs::exists(run.iteration(1) / "screen_bench.json"));  // no full screen was needed
  EXPECT_FALSE(verdict["time"]["stages"].contains("finals"));
}

TEST(StagedScreen, KilledAfterAnyStepAndRerunEndsInTheSameFiles) {
  TempDir dir("staged");
  std::vector<std::string> steps;
  SimulatedLab reference_lab(kModel);
  const RunFolder reference = twelve_branches(dir.path() / "reference", reference_lab);
  close_iteration(reference_lab, reference, std::nullopt, {.after_step = [&](std::string_view s) { steps.emplace_back(s); }});
  ASSERT_EQ(steps.front(), "first_look");
  const auto files = [](const fs::path& root) {
    std::map<std::string, json> out;
    for (const char* name : {"first_look.json", "screen.json", "finals.json", "ablation.json"}) {
      json d = read_json(root / "iter1" / name);
      d.erase("cost");
      out[name] = d;
    }
    return out;
  };
  for (const std::string& kill : steps) {
    SCOPED_TRACE("killed after " + kill);
    SimulatedLab lab(kModel);
    const RunFolder run = twelve_branches(dir.path() / ("killed_" + kill), lab);
    EXPECT_ANY_THROW(close_iteration(lab, run, std::nullopt, {.after_step = [&](std::string_view s) {
                                                                if (s == kill) throw std::runtime_error("killed");
                                                              }}));
    SimulatedLab again(kModel);
    close_iteration(again, run);
    EXPECT_EQ(files(run.root()), files(reference.root()));
  }
}

TEST(ScreenSettings, ReadFromTheDataFile) {
  const ScreenSettings& s = screen_settings();  // data/screen.toml
  EXPECT_EQ(s.first_look_seed, 1u);
  EXPECT_EQ(s.first_look_min_samples, 5);
  EXPECT_DOUBLE_EQ(s.promote_within, 0.10);
  EXPECT_EQ(s.promote_finalists_factor, 2);
  EXPECT_DOUBLE_EQ(s.branches_per_minute, 30);
}

TEST(CompileQueue, BuildsAheadInOrderAndEachWaitGetsItsOwnResult) {
  std::atomic<int> started = 0;
  CompileQueue queue(5, 2, [&](std::size_t i) {
    ++started;
    if (i == 3) throw std::runtime_error("nvcc failed");
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  });
  queue.wait(0);
  queue.wait(2);
  EXPECT_THROW(queue.wait(3), std::runtime_error);
  queue.wait(4);
  EXPECT_EQ(started, 5);
}

// The lab's queue over its variants' jobs: every job is built, each wait is its own job's,
// and an index the queue lacks is an error, not a wait that returns (the lab once built a
// queue of none, its jobs moved away before they were counted, and took each failed wait
// for a failed build).
TEST(CompileQueue, AQueueOfJobsBuildsEveryJobItHolds) {
  std::mutex built_mutex;
  std::vector<std::string> built;
  auto queue = compile_queue_of<std::string>({"b1", "b2", "b3", "b4", "b5"}, 3, [&](const std::string& job) {
    const std::lock_guard lock(built_mutex);
    built.push_back(job);
  });
  for (std::size_t i = 0; i < 5; ++i) queue->wait(i);
  std::ranges::sort(built);
  EXPECT_EQ(built, (std::vector<std::string>{"b1", "b2", "b3", "b4", "b5"}));
  EXPECT_THROW(queue->wait(5), std::out_of_range);
}

TEST(CompileQueue, StopsTakingWorkWhenDestroyed) {
  std::atomic<int> started = 0;
  {
    CompileQueue queue(100, 1, [&](std::size_t) {
      ++started;
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    });
  }
  EXPECT_LT(started, 100);
}

}  // namespace
}  // namespace kopt::loop
