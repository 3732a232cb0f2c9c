#include "kopt/core/process.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "kopt/core/error.hpp"
#include "kopt/core/files.hpp"
#include "kopt/core/interrupt.hpp"

namespace kopt {
namespace {

using ::testing::HasSubstr;

TEST(SystemProcessRunner, CapturesOutputAndExitStatus) {
  SystemProcessRunner runner;
  ProcessResult r = runner.run({.argv = {"sh", "-c", "echo out; echo err >&2; exit 3"}});
  EXPECT_TRUE(r.started);
  EXPECT_EQ(r.exit_status, 3);
  EXPECT_EQ(r.out, "out\n");
  EXPECT_EQ(r.err, "err\n");
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.outcome(), "exited with status 3");
}

// A daemon that leaves the child's process group and session (setsid), with its output
// away from kopt's pipes, still does not outlive the child: kopt adopts and ends it.
TEST(SystemProcessRunner, NothingTheChildStartedOutlivesIt) {
  TempDir dir("strays");
  const std::string pid_file = (dir.path() / "daemon.pid").string();
  SystemProcessRunner runner;
  ProcessResult r = runner.run(
      {.argv = {"sh", "-c",
                "setsid sh -c 'echo $$ > \"$0\"; exec sleep 30' \"$0\" </dev/null >/dev/null 2>&1 & "
                "while [ ! -s \"$0\" ]; do sleep 0.01; done",
                pid_file}});
  ASSERT_TRUE(r.ok()) << r.outcome();
  const pid_t daemon = std::stoi(read_file(pid_file));
  EXPECT_NE(::kill(daemon, 0), 0) << "the daemon " << daemon << " is still alive";
  EXPECT_EQ(errno, ESRCH);
}

// A daemon that keeps the child's stdout and stderr open (a kernel's library forked it,
// tests/gpu/kernels/cheat_sabotage_daemon) does not hold kopt until the time limit: the
// child's end ends the wait, with everything the child wrote.
TEST(SystemProcessRunner, ADaemonHoldingTheStreamsDoesNotOutlastTheChild) {
  SystemProcessRunner runner;
  const auto start = std::chrono::steady_clock::now();
  ProcessResult r = runner.run({.argv = {"sh", "-c", "setsid sleep 30 & echo done; echo said >&2"},
                                .time_limit = std::chrono::seconds(20)});
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_TRUE(r.ok()) << r.outcome();
  EXPECT_EQ(r.out, "done\n");
  EXPECT_EQ(r.err, "said\n");
  EXPECT_LT(seconds, 10.0);
}

// Compiles run side by side (loop/compile_queue.hpp): one runner's processes started from
// several threads run at once, not one after the other.
TEST(SystemProcessRunner, ProcessesStartedFromSeveralThreadsRunAtOnce) {
  SystemProcessRunner runner;
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::thread> threads;
  std::atomic<int> ok = 0;
  for (int i = 0; i < 4; ++i) {
    threads.emplace_back([&] {
      if (runner.run({.argv = {"sh", "-c", "sleep 1"}}).ok()) ++ok;
    });
  }
  for (std::thread& t : threads) t.join();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(ok, 4);
  EXPECT_LT(seconds, 2.5) << "four 1 s processes took " << seconds << " s: they ran one after the other";
}

TEST(SystemProcessRunner, KillsTheWholeGroupAtTheTimeLimit) {
  SystemProcessRunner runner;
  // The child starts a grandchild that holds the pipes open: both must end.
  ProcessResult r = runner.run({.argv = {"sh", "-c", "sleep 30 & sleep 30"}, .time_limit = std::chrono::milliseconds(300)});
  EXPECT_TRUE(r.timed_out);
  EXPECT_LT(r.seconds, 5.0);
  EXPECT_THAT(r.outcome(), HasSubstr("timed out"));
}

// A worker started before its job (run::PrestartedWorker): its limit counts from the job.
TEST(SystemProcessRunner, TheLimitDoesNotRunWhileTheProgramWaits) {
  SystemProcessRunner runner;
  auto waiting = std::make_shared<std::atomic<bool>>(true);
  std::thread give_job([waiting] {
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));
    waiting->store(false);
  });
  // 2.5 s of sleep under a 1.5 s limit: done in time only because the first 1.5 s were waiting.
  ProcessResult r = runner.run({.argv = {"sleep", "2.5"}, .time_limit = std::chrono::milliseconds(1500), .waiting = waiting});
  give_job.join();
  EXPECT_TRUE(r.ok()) << r.outcome();
  // Once the wait is over, the limit holds as usual.
  waiting->store(false);
  ProcessResult late = runner.run({.argv = {"sleep", "5"}, .time_limit = std::chrono::milliseconds(500), .waiting = waiting});
  EXPECT_TRUE(late.timed_out);
}

// A group kopt runs can be ended from another thread while its run lasts (a reference
// server never asked: verify/reference_server.hpp); one it does not run is never signalled.
TEST(EndTrackedChildGroup, EndsARunningGroupAndNoOther) {
  EXPECT_FALSE(end_tracked_child_group(::getpid()));  // kopt's own group is not its child's
  EXPECT_FALSE(end_tracked_child_group(0));
  EXPECT_FALSE(end_tracked_child_group(1));
  SystemProcessRunner runner;
  std::atomic<int> group = 0;
  std::thread ender([&group] {
    while (group == 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    EXPECT_TRUE(end_tracked_child_group(group));
  });
  ProcessResult r = runner.run({.argv = {"sh", "-c", "sleep 30 & sleep 30"}, .on_start = [&group](int pid) { group = pid; }});
  ender.join();
  EXPECT_EQ(r.signal, SIGKILL);
  EXPECT_LT(r.seconds, 5.0);
  EXPECT_FALSE(end_tracked_child_group(group));  // its run has returned
}

TEST(SystemProcessRunner, ReportsDeathBySignal) {
  SystemProcessRunner runner;
  ProcessResult r = runner.run({.argv = {"sh", "-c", "kill -SEGV $$"}});
  EXPECT_EQ(r.signal, SIGSEGV);
  EXPECT_THAT(r.outcome(), HasSubstr("signal 11"));
}

TEST(SystemProcessRunner, AMissingProgramIsNotStarted) {
  SystemProcessRunner runner;
  ProcessResult r = runner.run({.argv = {"kopt-no-such-program"}});
  EXPECT_FALSE(r.started);
  EXPECT_THAT(r.outcome(), HasSubstr("kopt-no-such-program"));
}

TEST(SystemProcessRunner, PassesEnvironmentAndWorkingDirectory) {
  SystemProcessRunner runner;
  ProcessResult r = runner.run({.argv = {"sh", "-c", "echo $KOPT_TEST_VAR; pwd"}, .working_dir = "/", .env = {{"KOPT_TEST_VAR", "42"}}});
  EXPECT_EQ(r.out, "42\n/\n");
}

TEST(SystemProcessRunner, PassesOnStandardErrorLinesWhileTheProgramRuns) {
  SystemProcessRunner runner;
  std::vector<std::string> lines;
  std::vector<bool> after_touch;  // per line: had the program already touched the marker?
  const std::string marker = ::testing::TempDir() + "kopt_process_test_marker";
  std::remove(marker.c_str());
  ProcessResult r = runner.run(
      {.argv = {"sh", "-c", "printf 'progress: one\\npartial' >&2; sleep 0.3; touch " + marker + "; printf ' line\\n' >&2"},
       .on_error_line = [&](std::string_view line) {
         lines.emplace_back(line);
         after_touch.push_back(::access(marker.c_str(), F_OK) == 0);
       }});
  std::remove(marker.c_str());
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(r.err, "progress: one\npartial line\n");
  EXPECT_THAT(lines, ::testing::ElementsAre("progress: one", "partial line"));
  EXPECT_THAT(after_touch, ::testing::ElementsAre(false, true));  // the first line came while it slept
}

TEST(ProcessResult, OutputTailKeepsTheLastNonEmptyLines) {
  ProcessResult r{.err = "a\n\nb\nc\n"};
  EXPECT_EQ(r.output_tail(2), "b\nc");
}

TEST(ShellQuote, QuotesOnlyWhatNeedsIt) {
  EXPECT_EQ(shell_quote_command({"nvcc", "-O3", "a b.cu", "it's"}), "nvcc -O3 'a b.cu' 'it'\\''s'");
}

TEST(FindProgram, FindsShOnPath) {
  EXPECT_TRUE(find_program("sh").has_value());
  EXPECT_FALSE(find_program("kopt-no-such-program").has_value());
}

// Sets an environment variable for one test and restores it after.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    ::setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() { old_ ? (void)::setenv(name_, old_->c_str(), 1) : (void)::unsetenv(name_); }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  std::optional<std::string> old_;
};

TEST(CudaToolDirs, EndWithTheFolderSetupInstallsInto) {
  ScopedEnv xdg("XDG_DATA_HOME", "/data/home");
  EXPECT_EQ(user_cuda_tools_dir(), std::filesystem::path("/data/home/kopt/cuda-tools"));
  EXPECT_EQ(cuda_tool_dirs().back(), std::filesystem::path("/data/home/kopt/cuda-tools/bin"));
  EXPECT_THAT(cuda_tool_search_places(), HasSubstr("/data/home/kopt/cuda-tools/bin"));
}

TEST(CudaToolDirs, NameEachFolderOnce) {
  ScopedEnv cuda_home("CUDA_HOME", "/usr/local/cuda/");
  const std::vector<std::filesystem::path> dirs = cuda_tool_dirs();
  EXPECT_EQ(std::count(dirs.begin(), dirs.end(), std::filesystem::path("/usr/local/cuda/bin")), 1);
}

TEST(CudaToolDirs, DefaultToTheHomeDataFolder) {
  ScopedEnv xdg("XDG_DATA_HOME", "");
  ScopedEnv home("HOME", "/home/someone");
  EXPECT_EQ(user_cuda_tools_dir(), std::filesystem::path("/home/someone/.local/share/kopt/cuda-tools"));
}

// A tool that is neither on PATH nor in the toolkit is found in the user's tools folder.
TEST(FindCudaTool, FindsAToolInTheUserToolsFolder) {
  TempDir data("cuda-tools-test");
  const std::filesystem::path bin = data.path() / "kopt" / "cuda-tools" / "bin";
  std::filesystem::create_directories(bin);
  write_file_atomic(bin / "kopt-fake-cuda-tool", "#!/bin/sh\n");
  std::filesystem::permissions(bin / "kopt-fake-cuda-tool", std::filesystem::perms::owner_all);
  ScopedEnv xdg("XDG_DATA_HOME", data.path().string());
  EXPECT_EQ(find_cuda_tool("kopt-fake-cuda-tool", "KOPT_NO_SUCH_VARIABLE", ""), bin / "kopt-fake-cuda-tool");
}

TEST(FindCudaTool, SaysWhereItLookedAndHowToGetIt) {
  ScopedEnv xdg("XDG_DATA_HOME", "/data/home");
  try {
    (void)find_cuda_tool("kopt-no-such-tool", "KOPT_NO_SUCH_VARIABLE", "install it");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("kopt-no-such-tool not found (looked on PATH, "));
    EXPECT_THAT(e.what(), HasSubstr("/data/home/kopt/cuda-tools/bin): install it"));
    EXPECT_EQ(e.code(), ExitCode::environment);
  }
}

}  // namespace
}  // namespace kopt
