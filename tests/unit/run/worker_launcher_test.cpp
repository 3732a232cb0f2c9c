#include "kopt/run/worker_launcher.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <csignal>
#include <cstdlib>
#include <functional>
#include <optional>
#include <sstream>
#include <thread>
#include <utility>

#include "kopt/core/files.hpp"

namespace kopt::run {
namespace {

using ::testing::HasSubstr;

// Plays a worker: `behaviour` decides what the "process" did with the job. Its standard
// error is passed on line by line, as a real runner does while the process runs.
class FakeWorker final : public ProcessRunner {
 public:
  std::function<ProcessResult(const std::vector<std::string>&)> behaviour;
  std::vector<std::pair<std::string, std::string>> env;  // what the last run added to its environment
  ProcessResult run(const ProcessSpec& spec) override {
    env = spec.env;
    ProcessResult result = behaviour(spec.argv);
    std::istringstream err(result.err);
    for (std::string line; spec.on_error_line && std::getline(err, line);) spec.on_error_line(line);
    return result;
  }
};

// $CUDA_VISIBLE_DEVICES of this process, set (or unset: nullptr) for one test.
class ScopedVisibleDevices {
 public:
  explicit ScopedVisibleDevices(const char* value) {
    if (const char* was = std::getenv("CUDA_VISIBLE_DEVICES")) was_ = was;
    if (value != nullptr) setenv("CUDA_VISIBLE_DEVICES", value, 1);
    else unsetenv("CUDA_VISIBLE_DEVICES");
  }
  ~ScopedVisibleDevices() {
    if (was_) setenv("CUDA_VISIBLE_DEVICES", was_->c_str(), 1);
    else unsetenv("CUDA_VISIBLE_DEVICES");
  }
  ScopedVisibleDevices(const ScopedVisibleDevices&) = delete;
  ScopedVisibleDevices& operator=(const ScopedVisibleDevices&) = delete;

 private:
  std::optional<std::string> was_;
};

std::optional<std::string> visible_devices_in(const std::vector<std::pair<std::string, std::string>>& env) {
  for (const auto& [name, value] : env) {
    if (name == "CUDA_VISIBLE_DEVICES") return value;
  }
  return std::nullopt;
}

TEST(WorkerDeviceView, AWorkerSeesItsGpuAloneAsItsDeviceZero) {
  EXPECT_EQ(worker_device_view(2, nullptr).visible_devices, "2");
  EXPECT_EQ(worker_device_view(2, nullptr).ordinal, 0);
  EXPECT_EQ(worker_device_view(0, "").visible_devices, "0");
  // kopt's number counts in kopt's own list: its entry is what the worker is given.
  EXPECT_EQ(worker_device_view(1, "4,5").visible_devices, "5");
  EXPECT_EQ(worker_device_view(1, "GPU-8f1c, GPU-03ab").visible_devices, "GPU-03ab");
  EXPECT_EQ(worker_device_view(0, "MIG-77e2").visible_devices, "MIG-77e2");
  EXPECT_EQ(worker_device_view(1, "4,5").ordinal, 0);
}

TEST(WorkerDeviceView, ANumberTheListHasNoEntryForIsLeftForCudaToRefuse) {
  for (const auto& [device, list] : {std::pair{2, "4,5"}, std::pair{1, "0,,1"}}) {
    const WorkerDeviceView view = worker_device_view(device, list);
    EXPECT_FALSE(view.visible_devices.has_value()) << list;
    EXPECT_EQ(view.ordinal, device) << list;
  }
}

class WorkerLauncherTest : public ::testing::Test {
 protected:
  TempDir dir{"worker-test"};
  FakeWorker worker;
  WorkerSettings settings{.executable = "/usr/bin/kopt", .time_limit = std::chrono::seconds(5)};
};

TEST_F(WorkerLauncherTest, WritesTheJobAndReadsTheResult) {
  worker.behaviour = [](const std::vector<std::string>& argv) {
    EXPECT_EQ(argv[1], "worker");
    nlohmann::json job = nlohmann::json::parse(read_file(argv[2]));
    write_file_atomic(argv[3], nlohmann::json{{"echo", job["kind"]}, {"nonce", job["nonce"]}}.dump());
    return ProcessResult{.started = true, .exit_status = 0};
  };
  WorkerOutcome outcome = run_worker(worker, settings, {{"kind", "probe"}}, dir.path());
  ASSERT_TRUE(outcome.result.has_value());
  EXPECT_EQ((*outcome.result)["echo"], "probe");
  EXPECT_FALSE(outcome.result->contains("nonce"));  // kopt's business only
}

// A kernel library that writes a result of its own (from solve, an exit handler or a child
// process) does not know the nonce that kopt handed its worker with the job.
TEST_F(WorkerLauncherTest, AResultWithoutTheJobsNonceIsForged) {
  std::string first_nonce;
  worker.behaviour = [&](const std::vector<std::string>& argv) {
    nlohmann::json job = nlohmann::json::parse(read_file(argv[2]));
    EXPECT_EQ(job["nonce"].get<std::string>().size(), 32U);
    EXPECT_NE(job["nonce"], first_nonce);  // new for every job
    if (first_nonce.empty()) first_nonce = job["nonce"];
    write_file_atomic(argv[3], nlohmann::json{{"kind", "check"}, {"runs", nlohmann::json::array()}}.dump());
    return ProcessResult{.started = true, .exit_status = 0};
  };
  for (int attempt = 0; attempt < 2; ++attempt) {
    WorkerOutcome outcome = run_worker(worker, settings, {{"kind", "check"}}, dir.path());
    EXPECT_FALSE(outcome.result.has_value());
    EXPECT_TRUE(outcome.forged);
    EXPECT_THAT(outcome.failure, HasSubstr("forged result"));
  }
}

TEST_F(WorkerLauncherTest, AKernelsWorkerSeesOnlyItsGpuAndItsResultNamesTheGpuByKoptsNumber) {
  const ScopedVisibleDevices visible("4,5");
  settings.device = 1;
  worker.behaviour = [](const std::vector<std::string>& argv) {
    nlohmann::json job = nlohmann::json::parse(read_file(argv[2]));
    EXPECT_EQ(job["device"], 0);  // the only GPU the worker sees
    nlohmann::json device = {{"ordinal", job["device"]}, {"uuid", "GPU-5"}};
    write_file_atomic(argv[3], nlohmann::json{{"device", device}, {"nonce", job["nonce"]}}.dump());
    return ProcessResult{.started = true, .exit_status = 0};
  };
  WorkerOutcome outcome = run_worker(worker, settings, {{"kind", "check"}, {"device", 1}}, dir.path());
  EXPECT_EQ(visible_devices_in(worker.env), "5");
  ASSERT_TRUE(outcome.result.has_value()) << outcome.failure;
  EXPECT_EQ((*outcome.result)["device"]["ordinal"], 1);
}

TEST_F(WorkerLauncherTest, TheProbeSeesEveryGpu) {
  const ScopedVisibleDevices visible("4,5");
  settings.device = 1;
  worker.behaviour = [](const std::vector<std::string>& argv) {
    nlohmann::json job = nlohmann::json::parse(read_file(argv[2]));
    EXPECT_EQ(job["device"], 1);
    write_file_atomic(argv[3], nlohmann::json{{"device", {{"ordinal", 1}}}, {"nonce", job["nonce"]}}.dump());
    return ProcessResult{.started = true, .exit_status = 0};
  };
  WorkerOutcome outcome = run_worker(worker, settings, {{"kind", "probe"}, {"device", 1}}, dir.path());
  EXPECT_FALSE(visible_devices_in(worker.env).has_value());
  ASSERT_TRUE(outcome.result.has_value()) << outcome.failure;
  EXPECT_EQ((*outcome.result)["device"]["ordinal"], 1);
}

TEST_F(WorkerLauncherTest, ALauncherRunsTheWorkerUnderItselfAndItsOutputIsKept) {
  settings.launcher = {"/opt/ncu", "--nvtx"};
  worker.behaviour = [](const std::vector<std::string>& argv) {
    EXPECT_EQ(argv[0], "/opt/ncu");
    EXPECT_EQ(argv[1], "--nvtx");
    EXPECT_EQ(argv[2], "/usr/bin/kopt");
    EXPECT_EQ(argv[3], "worker");
    nlohmann::json job = nlohmann::json::parse(read_file(argv[4]));
    write_file_atomic(argv[5], nlohmann::json{{"nonce", job["nonce"]}}.dump());
    return ProcessResult{.started = true, .exit_status = 0, .out = "==PROF== Disconnected\n",
                         .err = "progress: profiled call\n==WARNING== something\n"};
  };
  WorkerOutcome outcome = run_worker(worker, settings, {{"kind", "profile"}}, dir.path());
  ASSERT_TRUE(outcome.result.has_value());
  EXPECT_THAT(outcome.output, HasSubstr("==PROF== Disconnected"));
  EXPECT_THAT(outcome.output, HasSubstr("==WARNING== something"));
  EXPECT_THAT(outcome.output, ::testing::Not(HasSubstr("progress:")));
}

TEST_F(WorkerLauncherTest, ItsProgressLinesAreShownLiveUnderTheJobsActivityAndErasedAtTheEnd) {
  std::string drawn;
  auto clock = ProgressLine::Clock::time_point{};
  ProgressLine line({.write = [&](std::string_view bytes) { drawn += bytes; }, .is_tty = true}, false,
                    [&] { return clock += std::chrono::milliseconds(150); });
  settings.progress = &line;
  worker.behaviour = [](const std::vector<std::string>& argv) {
    write_file_atomic(argv[3], "{}");
    return ProcessResult{.started = true, .exit_status = 0,
                         .err = "progress: case default: measuring b3: 140 samples\nunrelated noise\n"};
  };
  run_worker(worker, settings, {{"kind", "bench"}}, dir.path());
  EXPECT_THAT(drawn, HasSubstr("\rtiming: case default: measuring b3: 140 samples · "));
  EXPECT_THAT(drawn, ::testing::Not(HasSubstr("unrelated noise")));
  EXPECT_EQ(drawn.back(), '\r');  // erased once the worker ended
}

TEST_F(WorkerLauncherTest, ACrashIsAnOutcomeThatSaysWhereItHappened) {
  worker.behaviour = [](const std::vector<std::string>&) {
    return ProcessResult{.started = true, .signal = SIGSEGV,
                         .err = "progress: case default seed 1: first call\nSegmentation fault\n"};
  };
  WorkerOutcome outcome = run_worker(worker, settings, {{"kind", "check"}}, dir.path());
  EXPECT_FALSE(outcome.result.has_value());
  EXPECT_THAT(outcome.failure, HasSubstr("killed by signal 11"));
  EXPECT_EQ(outcome.last_progress, "case default seed 1: first call");
  EXPECT_EQ(outcome.stderr_tail, "Segmentation fault");
}

TEST_F(WorkerLauncherTest, ATimeoutIsReportedAsSuch) {
  worker.behaviour = [](const std::vector<std::string>&) {
    return ProcessResult{.started = true, .timed_out = true, .seconds = 5};
  };
  WorkerOutcome outcome = run_worker(worker, settings, {{"kind", "check"}}, dir.path());
  EXPECT_TRUE(outcome.timed_out);
  EXPECT_THAT(outcome.failure, HasSubstr("timed out"));
}

TEST_F(WorkerLauncherTest, AStaleResultFromAnEarlierRunIsNeverRead) {
  write_file_atomic(dir.path() / "result.json", "{\"stale\": true}");
  worker.behaviour = [](const std::vector<std::string>&) { return ProcessResult{.started = true, .exit_status = 0}; };
  WorkerOutcome outcome = run_worker(worker, settings, {{"kind", "check"}}, dir.path());
  EXPECT_FALSE(outcome.result.has_value());
  EXPECT_THAT(outcome.failure, HasSubstr("without writing a result"));
}


// Plays a prestarted worker: waits for its job file as `kopt worker --await-device` does,
// then answers it; the process's time limit must not have run while it waited.
class FakeAwaitingWorker final : public ProcessRunner {
 public:
  std::vector<std::string> argv;
  std::vector<std::pair<std::string, std::string>> env;
  std::string kind_seen;
  nlohmann::json device_seen;
  bool waited_with_limit_held = false;
  ProcessResult run(const ProcessSpec& spec) override {
    argv = spec.argv;
    env = spec.env;
    const std::filesystem::path job_path = spec.argv[spec.argv.size() - 2];
    while (!std::filesystem::exists(job_path)) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    waited_with_limit_held = spec.waiting != nullptr;
    nlohmann::json job = nlohmann::json::parse(read_file(job_path));
    kind_seen = job.value("kind", "");
    device_seen = job.value("device", nlohmann::json());
    write_file_atomic(spec.argv.back(), nlohmann::json{{"kind", kind_seen}, {"nonce", job.value("nonce", "")}}.dump());
    return ProcessResult{.started = true, .exit_status = 0};
  }
};

TEST(PrestartedWorker, StartsBeforeItsJobAndRunsItWhenGiven) {
  const ScopedVisibleDevices visible(nullptr);
  TempDir dir{"prestarted-test"};
  FakeAwaitingWorker runner;
  WorkerSettings settings{.executable = "/usr/bin/kopt", .time_limit = std::chrono::seconds(5), .device = 1};
  PrestartedWorker worker(runner, settings, dir.path());
  WorkerOutcome outcome = worker.run({{"kind", "check"}, {"device", 1}});
  ASSERT_TRUE(outcome.result.has_value()) << outcome.failure;
  EXPECT_EQ((*outcome.result)["kind"], "check");
  EXPECT_EQ(runner.argv[1], "worker");
  EXPECT_EQ(runner.argv[2], "--await-device");
  // GPU 1 alone, which the worker knows as its device 0, in its set-up and in its job.
  EXPECT_EQ(runner.argv[3], "0");
  EXPECT_EQ(visible_devices_in(runner.env), "1");
  EXPECT_EQ(runner.device_seen, 0);
  EXPECT_TRUE(runner.waited_with_limit_held);
  EXPECT_THROW(worker.run({{"kind", "check"}}), std::logic_error);  // one job per worker
}

// Says it has set CUDA up (on stderr, as await_prestarted_job does) once `say` is true, then
// waits for its job as FakeAwaitingWorker does.
class FakeSettingUpWorker final : public ProcessRunner {
 public:
  std::atomic<bool> say{false};
  ProcessResult run(const ProcessSpec& spec) override {
    while (!say) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    spec.on_error_line("progress: " + std::string(kCudaSetUpProgress));
    const std::filesystem::path job_path = spec.argv[spec.argv.size() - 2];
    while (!std::filesystem::exists(job_path)) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    return ProcessResult{.started = true, .exit_status = 0};
  }
};

TEST(PrestartedWorker, IsSetUpOnceItSaysSo) {
  TempDir dir{"prestarted-test"};
  FakeSettingUpWorker runner;
  PrestartedWorker worker(runner, WorkerSettings{.executable = "/usr/bin/kopt"}, dir.path());
  EXPECT_FALSE(worker.wait_until_set_up(std::chrono::milliseconds(20)));
  runner.say = true;
  EXPECT_TRUE(worker.wait_until_set_up(std::chrono::seconds(5)));
}

TEST(PrestartedWorker, OneThatEndedIsNotWaitedFor) {
  TempDir dir{"prestarted-test"};
  FakeWorker ended;
  ended.behaviour = [](const std::vector<std::string>&) { return ProcessResult{.started = true, .exit_status = 1}; };
  PrestartedWorker worker(ended, WorkerSettings{.executable = "/usr/bin/kopt"}, dir.path());
  EXPECT_TRUE(worker.wait_until_set_up(std::chrono::seconds(5)));
}

TEST(PrestartedWorker, OneNeverGivenAJobIsToldToStop) {
  TempDir dir{"prestarted-test"};
  FakeAwaitingWorker runner;
  {
    PrestartedWorker worker(runner, WorkerSettings{.executable = "/usr/bin/kopt"}, dir.path());
  }
  EXPECT_EQ(runner.kind_seen, "cancel");
}

TEST(PrestartedWorker, AResultWithoutTheJobsNonceIsForged) {
  TempDir dir{"prestarted-test"};
  FakeWorker forger;
  forger.behaviour = [](const std::vector<std::string>& argv) {
    while (!std::filesystem::exists(argv[argv.size() - 2])) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    write_file_atomic(argv.back(), nlohmann::json{{"kind", "check"}, {"nonce", "guessed"}}.dump());
    return ProcessResult{.started = true, .exit_status = 0};
  };
  PrestartedWorker worker(forger, WorkerSettings{.executable = "/usr/bin/kopt"}, dir.path());
  WorkerOutcome outcome = worker.run({{"kind", "check"}});
  EXPECT_TRUE(outcome.forged);
}

}  // namespace
}  // namespace kopt::run
