#include "kopt/verify/reference_server.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <csignal>
#include <mutex>
#include <thread>

#include "kopt/core/clock.hpp"
#include "kopt/core/error.hpp"
#include "kopt/core/files.hpp"
#include "kopt/core/process.hpp"
#include "kopt/spec/problem_spec.hpp"
#include "kopt/verify/npy.hpp"
#include "kopt/verify/reference.hpp"
#include "verify_test_support.hpp"

namespace kopt::verify {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

using testing_support::has_numpy;

spec::Problem small(const std::string& folder, std::int64_t n) {
  return spec::load_problem(fs::path(KOPT_SOURCE_DIR) / folder, std::nullopt, {{"N", n}});
}

// The bytes of every output of every (case, seed) of `outputs`.
std::vector<std::string> output_bytes(const spec::Problem& problem, const ReferenceOutputs& outputs) {
  std::vector<std::string> bytes;
  for (std::size_t c = 0; c < outputs.dirs.size(); ++c) {
    for (const fs::path& dir : outputs.dirs[c]) {
      for (const spec::BoundArg& arg : problem.cases[c].args) {
        if (arg.buffer && arg.buffer->is_output) bytes.push_back(read_file(dir / (arg.buffer->name + ".npy")));
      }
    }
  }
  return bytes;
}

// The real runner on examples/reduction's ref.py: one process answers two requests, and its
// outputs are the bytes a runner of its own per request writes.
TEST(PythonReferenceServer, AnswersAsARunnerOfItsOwnWould) {
  SystemProcessRunner runner;
  if (!has_numpy(runner)) GTEST_SKIP() << "needs python3 with numpy";
  const spec::Problem problem = small("examples/reduction", 1000);
  TempDir one_shot_cache("server-test-one-shot"), served_cache("server-test-served");
  ReferenceContext one_shot{runner, one_shot_cache.path(), {}, true};
  const ReferenceOutputs expected = python_reference_outputs(problem, {11, 12}, one_shot);

  const auto server = serve_python_reference(problem, runner, served_cache.path(), std::chrono::seconds(60), 0);
  ASSERT_NE(server, nullptr);
  ReferenceContext served{runner, served_cache.path(), {}, true};
  served.python_server = server.get();
  const ReferenceOutputs first = python_reference_outputs(problem, {11, 12}, served);
  EXPECT_EQ(output_bytes(problem, first), output_bytes(problem, expected));
  const ReferenceOutputs second = python_reference_outputs(problem, {13}, served);  // a second request
  EXPECT_EQ(second.computed, static_cast<int>(problem.cases.size()));
  EXPECT_EQ(second.backend, expected.backend);
}

// Where a .py reference's time went (check.json's reference_seconds): kopt's inputs, the wait
// for the runner, and within it what the runner itself measured, for one-shot and served runs.
TEST(PythonReferenceServer, ItsAnswerSaysWhereTheReferencesTimeWent) {
  SystemProcessRunner runner;
  if (!has_numpy(runner)) GTEST_SKIP() << "needs python3 with numpy";
  const spec::Problem problem = small("examples/reduction", 1000);
  TempDir cache("server-test-split");
  const auto server = serve_python_reference(problem, runner, cache.path(), std::chrono::seconds(60), 0);
  for (PythonReferenceServer* served : {static_cast<PythonReferenceServer*>(nullptr), server.get()}) {
    ReferenceContext context{runner, cache.path(), {}, true};
    context.python_server = served;
    const ReferenceOutputs outputs = python_reference_outputs(problem, {served ? 21u : 22u}, context);
    ASSERT_TRUE(outputs.python_seconds.has_value());
    const PythonReferenceSeconds& split = *outputs.python_seconds;
    EXPECT_GT(split.inputs, 0.0);
    EXPECT_GT(split.runner, 0.0);
    for (double part : {split.runner_load, split.runner_compute, split.runner_save, split.outputs}) EXPECT_GE(part, 0.0);
    EXPECT_LE(split.runner_load + split.runner_compute + split.runner_save, split.runner);
  }
  // Every output already in the cache: nothing ran, nothing to split.
  ReferenceContext cached{runner, cache.path(), {}, false};
  python_reference_outputs(problem, {23}, cached);
  EXPECT_FALSE(python_reference_outputs(problem, {23}, cached).python_seconds.has_value());
}

// A reference that raises fails the same way through the server: one line naming the
// reference and the cause, exit 2.
TEST(PythonReferenceServer, AReferenceThatRaisesFailsAsBefore) {
  SystemProcessRunner runner;
  if (!has_numpy(runner)) GTEST_SKIP() << "needs python3 with numpy";
  const spec::Problem problem = small("tests/gpu/kernels/reference_raises", 64);
  auto message = [&](PythonReferenceServer* server) {
    TempDir cache("server-test-raises");
    ReferenceContext context{runner, cache.path(), {}, true};
    context.python_server = server;
    try {
      python_reference_outputs(problem, {5}, context);
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ExitCode::bad_input);
      return std::string(e.what());
    }
    ADD_FAILURE() << "the reference did not fail";
    return std::string();
  };
  TempDir server_cache("server-test-raises-served");
  const auto server = serve_python_reference(problem, runner, server_cache.path(), std::chrono::seconds(60), 0);
  const std::string served = message(server.get());
  EXPECT_THAT(served, HasSubstr("ValueError"));
  EXPECT_EQ(served, message(nullptr));
  // The server outlives a reference that raised: it answers the next request too.
  EXPECT_EQ(message(server.get()), served);
}

// A server that cannot start (no such script) hands its work back: the caller runs one-shot.
TEST(PythonReferenceServer, OneThatEndedAnswersNothing) {
  SystemProcessRunner runner;
  if (!find_program("python3")) GTEST_SKIP() << "needs python3";
  TempDir cache("server-test-ended");
  PythonReferenceServer server(runner, find_python(), cache.path() / "no-such-runner.py", cache.path(),
                               std::chrono::seconds(10));
  EXPECT_FALSE(server.run({cache.path() / "manifest.json"}).has_value());
}

// SystemProcessRunner, keeping what each run gave and telling when a child has started.
class RecordingRunner final : public ProcessRunner {
 public:
  ProcessResult run(const ProcessSpec& spec) override {
    ProcessSpec watched = spec;
    watched.on_start = [this, &spec](int pid) {
      if (spec.on_start) spec.on_start(pid);
      started = true;
    };
    ProcessResult result = system_.run(watched);
    std::lock_guard lock(mutex_);
    results_.push_back(result);
    return result;
  }
  std::vector<ProcessResult> results() {
    std::lock_guard lock(mutex_);
    return results_;
  }
  bool wait_until_started() {
    for (int i = 0; i < 500 && !started; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    return started;
  }

  std::atomic<bool> started = false;

 private:
  SystemProcessRunner system_;
  std::mutex mutex_;
  std::vector<ProcessResult> results_;
};

// A "runner" that never reads its stop: Python busy importing torch, for as long as it takes.
fs::path importing_for_ever(const TempDir& dir) {
  write_file_atomic(dir.path() / "importing.py", "import time\ntime.sleep(30)\n");
  return dir.path() / "importing.py";
}

// How long destroying `server` took, in seconds.
double seconds_to_destroy(std::unique_ptr<PythonReferenceServer>& server) {
  const Stopwatch clock;
  server.reset();
  return clock.seconds();
}

// A server never asked anything ends at once when destroyed (SIGKILL to its group), rather
// than writing "stop" and waiting out its imports or its time limit (20 s here).
TEST(PythonReferenceServer, NeverAskedItEndsAtOnce) {
  if (!find_program("python3")) GTEST_SKIP() << "needs python3";
  RecordingRunner runner;
  TempDir cache("server-test-never-asked");
  auto server = std::make_unique<PythonReferenceServer>(runner, find_python(), importing_for_ever(cache), cache.path(),
                                                        std::chrono::seconds(20));
  ASSERT_TRUE(runner.wait_until_started());
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // well into Python's start
  EXPECT_LT(seconds_to_destroy(server), 0.5);
  const std::vector<ProcessResult> results = runner.results();
  ASSERT_EQ(results.size(), 1u);
  EXPECT_TRUE(results[0].started);
  EXPECT_EQ(results[0].signal, SIGKILL);
  EXPECT_FALSE(results[0].timed_out);
}

// Destroyed before its process has even started (on_start not yet called): the process is
// ended as it starts, not left to run out its time limit.
TEST(PythonReferenceServer, DestroyedBeforeItsProcessStartedItEndsAsItStarts) {
  if (!find_program("python3")) GTEST_SKIP() << "needs python3";
  for (int attempt = 0; attempt < 5; ++attempt) {
    RecordingRunner runner;
    TempDir cache("server-test-unborn");
    auto server = std::make_unique<PythonReferenceServer>(runner, find_python(), importing_for_ever(cache),
                                                          cache.path(), std::chrono::seconds(20));
    EXPECT_LT(seconds_to_destroy(server), 0.5);
    const std::vector<ProcessResult> results = runner.results();
    ASSERT_EQ(results.size(), 1u);
    EXPECT_FALSE(results[0].ok());
    EXPECT_FALSE(results[0].timed_out);
  }
}

// A server that was asked ends by its "stop", as before: the runner, past its imports, reads
// it and exits on its own (status 7 in this stand-in, which answers every request).
TEST(PythonReferenceServer, AskedOnceItEndsByItsStop) {
  if (!find_program("python3")) GTEST_SKIP() << "needs python3";
  RecordingRunner runner;
  TempDir cache("server-test-asked");
  write_file_atomic(cache.path() / "serving.py", R"(import json, os, sys, time
folder, number = sys.argv[2], 0
while True:
    request = os.path.join(folder, "request-%d.json" % number)
    while not os.path.exists(request):
        if os.path.exists(os.path.join(folder, "stop")):
            sys.exit(7)
        time.sleep(0.002)
    with open(request) as f:
        nonce = json.load(f)["nonce"]
    response = os.path.join(folder, "response-%d.json" % number)
    with open(response + ".tmp", "w") as f:
        json.dump({"nonce": nonce, "lines": [{"served": number}]}, f)
    os.replace(response + ".tmp", response)
    number += 1
)");
  auto server = std::make_unique<PythonReferenceServer>(runner, find_python(), cache.path() / "serving.py",
                                                        cache.path(), std::chrono::seconds(20));
  const std::optional<RunnerAnswer> answer = server->run({cache.path() / "manifest.json"});
  ASSERT_TRUE(answer.has_value());
  ASSERT_EQ(answer->lines.size(), 1u);
  EXPECT_EQ(answer->lines[0].value("served", -1), 0);
  EXPECT_LT(seconds_to_destroy(server), 5.0);
  const std::vector<ProcessResult> results = runner.results();
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].signal, 0);
  EXPECT_EQ(results[0].exit_status, 7);
}

}  // namespace
}  // namespace kopt::verify
