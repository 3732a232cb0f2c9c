// Spread measurements without a cluster or several GPUs: sbatch, and `kopt lab-job` on each
// GPU, are played by ProcessRunners that run each task in-process on the simulated lab.
// tests/slurm/ runs the Slurm executor against a real slurmctld and slurmd, and
// cli.devices_spread the --devices one with real lab-job processes.
#include "kopt/loop/spread_lab.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "kopt/core/error.hpp"
#include "kopt/core/files.hpp"
#include "kopt/loop/simulated_lab.hpp"
#include "loop_fixtures.hpp"

namespace kopt::loop {
namespace {
namespace fs = std::filesystem;
using json = nlohmann::json;
using ::testing::HasSubstr;

const fs::path kSource = kKernel / "sgemm_tiled.cu";

// sbatch --wait: runs the tasks --array names, each as its node would (run_lab_job on a lab of
// its own), except those in `lost` (cancelled, their node gone). Records every command.
class FakeSbatch final : public ProcessRunner {
 public:
  std::set<std::size_t> lost;
  bool never_ends = false;  // the tasks stay queued: sbatch is killed at its time limit
  std::vector<std::vector<std::string>> commands;

  ProcessResult run(const ProcessSpec& spec) override {
    commands.push_back(spec.argv);
    if (spec.argv.front() == "scancel") return {.started = true, .exit_status = 0};
    if (never_ends) return {.started = true, .exit_status = -1, .timed_out = true};
    const std::string array = option("--array=");
    const fs::path dir = fs::path(option("--output=")).parent_path();
    for (std::size_t begin = 0; begin < array.size();) {
      const std::size_t comma = array.find(',', begin);
      const std::size_t task = std::stoul(array.substr(begin, comma - begin));
      begin = comma == std::string::npos ? array.size() : comma + 1;
      if (lost.contains(task)) continue;
      SimulatedLab node(kModel);
      const json job = json::parse(read_file(dir / ("part_" + std::to_string(task) + ".json")));
      write_file_atomic(dir / ("part_" + std::to_string(task) + ".result.json"), run_lab_job(node, job).dump());
      write_file_atomic(dir / ("part_" + std::to_string(task) + ".log"), "done\n");
    }
    return {.started = true, .exit_status = lost.empty() ? 0 : 1};
  }

  std::string option(const std::string& prefix) const {
    for (const std::string& arg : commands.back()) {
      if (arg.starts_with(prefix)) return arg.substr(prefix.size());
    }
    return "";
  }
};

class SpreadLabTest : public ::testing::Test {
 protected:
  SpreadLab lab() {
    return SpreadLab(std::make_unique<SimulatedLab>(kModel),
                     std::make_unique<SlurmExecutor>(sbatch, SlurmSettings{.wait = std::chrono::seconds(90), .kopt = "/usr/bin/kopt"}),
                     {.variants_per_task = 2, .stage = dir.path() / "stage", .lab = {{"simulate", kModel.string()}}});
  }
  MeasureRequest request(int branches) const {
    MeasureRequest r{.variants = {{.label = "best", .kernel = kSource}}, .spread = true};
    for (int b = 1; b <= branches; ++b) {
      r.variants.push_back({.label = "b" + std::to_string(b), .kernel = kSource, .defines = {{"BM", std::to_string(16 << b)}}});
    }
    return r;
  }

  TempDir dir{"slurm-lab"};
  FakeSbatch sbatch;
};

TEST(SplitRequest, EveryPartStartsWithTheFirstAndTheOthersKeepTheirOrder) {
  MeasureRequest r{.variants = {{.label = "best"}, {.label = "a"}, {.label = "b"}, {.label = "c"}},
                   .time_reference = true,
                   .witness_ncu = true,
                   .spread = true};
  const std::vector<MeasureRequest> parts = split_request(r, 2);
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_EQ(parts[0].variants.size(), 3u);
  EXPECT_EQ(parts[1].variants.at(0).label, "best");
  EXPECT_EQ(parts[1].variants.at(1).label, "c");
  EXPECT_TRUE(parts[1].witness_ncu);
  EXPECT_TRUE(parts[0].time_reference);
  EXPECT_FALSE(parts[1].time_reference);  // the reference is timed once
  EXPECT_EQ(split_request({.variants = {{.label = "baseline"}}}, 2).size(), 1u);  // init's lone baseline: one task
  r.spread = false;  // the finals, the ablation, the audit: one GPU for all of them
  EXPECT_EQ(split_request(r, 2).size(), 1u);
}

TEST(SbatchCommand, NamesTheTasksTheirLimitsAndTheNodesCommand) {
  const std::vector<std::string> argv =
      sbatch_command({.partition = "gpu", .gpus_per_task = 2, .wait = std::chrono::seconds(90), .kopt = "/opt/kopt"},
                     "/shared/stage/measure-1", "kopt-1", {0, 2});
  EXPECT_THAT(argv, ::testing::IsSupersetOf({"sbatch", "--wait", "--array=0,2", "--partition=gpu", "--gres=gpu:2",
                                             "--time=1:30", "--output=/shared/stage/measure-1/part_%a.log"}));
  EXPECT_THAT(argv.back(), HasSubstr("/opt/kopt"));
  EXPECT_THAT(argv.back(), HasSubstr("lab-job"));
  EXPECT_THAT(argv.back(), HasSubstr("part_${SLURM_ARRAY_TASK_ID}.json"));
}

TEST_F(SpreadLabTest, TheTasksOutcomesJoinedAreTheOnesOneMachineGives) {
  SpreadLab on_slurm = lab();
  const Measurement joined = on_slurm.measure(request(5));
  SimulatedLab here(kModel);
  const Measurement direct = here.measure(request(5));
  ASSERT_EQ(joined.outcomes.size(), 6u);
  for (std::size_t i = 0; i < joined.outcomes.size(); ++i) {
    EXPECT_EQ(joined.outcomes[i].label, direct.outcomes[i].label);
    EXPECT_DOUBLE_EQ(joined.outcomes[i].median, direct.outcomes[i].median) << joined.outcomes[i].label;
  }
  ASSERT_EQ(sbatch.commands.size(), 1u);
  EXPECT_EQ(sbatch.option("--array="), "0,1,2");  // 5 branches, 2 a task: 3 tasks
  // One bench report of every variant, as the loop's readers expect (screen_bench.json).
  EXPECT_EQ(joined.detail.at("variants").size(), 6u);
  EXPECT_EQ(joined.detail.at("spread").at("tasks"), 3);
}

TEST_F(SpreadLabTest, ALostTaskIsNamedTheOthersAreKeptAndARerunSubmitsOnlyIt) {
  sbatch.lost = {1};
  SpreadLab on_slurm = lab();
  EXPECT_THAT([&] { on_slurm.measure(request(5)); },
              ::testing::ThrowsMessage<Error>(::testing::AllOf(HasSubstr("1 of 3 tasks"), HasSubstr("task 1 (no log"),
                                                               HasSubstr("run the same command again"))));
  sbatch.lost.clear();
  const Measurement joined = on_slurm.measure(request(5));
  EXPECT_EQ(joined.outcomes.size(), 6u);
  EXPECT_EQ(sbatch.option("--array="), "1");
  on_slurm.measure(request(5));  // everything is there: nothing is submitted
  EXPECT_EQ(sbatch.commands.size(), 2u);
}

TEST_F(SpreadLabTest, TasksStillQueuedAtTheTimeLimitAreCancelledAndSaidSo) {
  sbatch.never_ends = true;
  SpreadLab on_slurm = lab();
  EXPECT_THAT([&] { on_slurm.first_look(request(2)); },
              ::testing::ThrowsMessage<Error>(HasSubstr("not done within --slurm-time (90 s): cancelled")));
  ASSERT_EQ(sbatch.commands.back().front(), "scancel");
  EXPECT_THAT(sbatch.commands.back().back(), HasSubstr("--name=kopt-"));
}

// `kopt lab-job ... --device N` on each GPU of this host, played in-process; records which
// device ran which task and how many ran at once.
class FakeDeviceTasks final : public ProcessRunner {
 public:
  std::mutex mutex;
  std::map<std::size_t, std::string> device_of_task;
  int running = 0, most_at_once = 0;
  std::set<std::size_t> failing;

  ProcessResult run(const ProcessSpec& spec) override {
    {
      const std::lock_guard lock(mutex);
      most_at_once = std::max(most_at_once, ++running);
    }
    const fs::path job = spec.argv.at(2), result = spec.argv.at(3);
    const std::size_t task = std::stoul(job.stem().string().substr(5));  // part_N
    {
      const std::lock_guard lock(mutex);
      device_of_task[task] = spec.argv.at(5);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    ProcessResult r{.started = true, .exit_status = 0};
    if (failing.contains(task)) {
      r.exit_status = 3;
      r.err = "kopt: the worker crashed\n";
    } else {
      SimulatedLab gpu(kModel);
      write_file_atomic(result, run_lab_job(gpu, json::parse(read_file(job))).dump());
    }
    const std::lock_guard lock(mutex);
    --running;
    return r;
  }
};

TEST_F(SpreadLabTest, OnTwoGpusEachTakesItsTasksInTurnOneAtATimeAndTheJoinIsTheSame) {
  FakeDeviceTasks gpus;
  SpreadLab on_two(std::make_unique<SimulatedLab>(kModel),
                   std::make_unique<DeviceExecutor>(gpus, std::vector<int>{0, 1}, "/usr/bin/kopt", std::chrono::seconds(60)),
                   {.variants_per_task = 2, .stage = dir.path() / "devices", .lab = {{"simulate", kModel.string()}}});
  const Measurement joined = on_two.measure(request(7));  // 4 tasks
  SimulatedLab here(kModel);
  const Measurement direct = here.measure(request(7));
  ASSERT_EQ(joined.outcomes.size(), direct.outcomes.size());
  for (std::size_t i = 0; i < joined.outcomes.size(); ++i) EXPECT_DOUBLE_EQ(joined.outcomes[i].median, direct.outcomes[i].median);
  EXPECT_EQ(gpus.device_of_task, (std::map<std::size_t, std::string>{{0, "0"}, {1, "1"}, {2, "0"}, {3, "1"}}));
  EXPECT_EQ(gpus.most_at_once, 2);
}

TEST_F(SpreadLabTest, ATaskThatFailsOnItsGpuIsNamedWithItsLogAndRunAloneNextTime) {
  FakeDeviceTasks gpus;
  gpus.failing = {2};
  SpreadLab on_two(std::make_unique<SimulatedLab>(kModel),
                   std::make_unique<DeviceExecutor>(gpus, std::vector<int>{0, 1}, "/usr/bin/kopt", std::chrono::seconds(60)),
                   {.variants_per_task = 2, .stage = dir.path() / "devices", .lab = {{"simulate", kModel.string()}}});
  EXPECT_THAT([&] { on_two.first_look(request(7)); },
              ::testing::ThrowsMessage<Error>(::testing::AllOf(HasSubstr("1 of 4 tasks"), HasSubstr("task 2 (kopt: the worker crashed)"))));
  gpus.failing.clear();
  gpus.device_of_task.clear();
  EXPECT_EQ(on_two.first_look(request(7)).outcomes.size(), 8u);
  EXPECT_EQ(gpus.device_of_task.size(), 1u);  // only the lost task ran again
}

TEST(Devices, AListOfIndicesEachOnceAndOneModelOfGpu) {
  EXPECT_EQ(parse_devices("0,1"), (std::vector<int>{0, 1}));
  EXPECT_EQ(parse_devices("3"), (std::vector<int>{3}));
  EXPECT_THAT([] { parse_devices("0,0"); }, ::testing::ThrowsMessage<Error>(HasSubstr("named twice")));
  EXPECT_THAT([] { parse_devices("0,gpu1"); }, ::testing::ThrowsMessage<Error>(HasSubstr("GPU indices")));
  EXPECT_THAT([] { parse_devices(""); }, ::testing::ThrowsMessage<Error>(HasSubstr("GPU indices")));
  EXPECT_NO_THROW(require_one_model({0, 1}, {"NVIDIA H200", "NVIDIA H200"}));
  EXPECT_THAT([] { require_one_model({0, 1}, {"NVIDIA H200", "NVIDIA H100 80GB HBM3"}); },
              ::testing::ThrowsMessage<Error>(HasSubstr("one model of GPU only")));
}

TEST(SpreadLab, WithoutAStageFolderItRefusesInOneLine) {
  FakeSbatch sbatch;
  EXPECT_THAT([&] { SpreadLab(std::make_unique<SimulatedLab>(kModel), std::make_unique<SlurmExecutor>(sbatch, SlurmSettings{}), {}); },
              ::testing::ThrowsMessage<Error>(HasSubstr("stage folder")));
}

}  // namespace
}  // namespace kopt::loop
