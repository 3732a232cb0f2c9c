#include "kopt/run/write_sandbox.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <functional>
#include <filesystem>
#include <string>

#include "kopt/core/files.hpp"

namespace kopt::run {
namespace {

namespace fs = std::filesystem;

// Each case runs in a forked child: the sandbox lasts for the rest of a process's life.
// The child's exit code is its answer: 0 as expected, otherwise which step surprised it.
int in_confined_child(const fs::path& writable, const std::function<int()>& body) {
  const pid_t child = ::fork();
  if (child == 0) {
    try {
      if (!confine_writes({writable}).confined) std::_Exit(90);
      std::_Exit(body());
    } catch (...) {
      std::_Exit(91);
    }
  }
  int status = 0;
  ::waitpid(child, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 92;
}

int open_for_writing(const fs::path& path, int flags) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC | flags, 0644);
  if (fd >= 0) ::close(fd);
  return fd >= 0 ? 0 : errno;
}

class WriteSandboxTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (landlock_abi() == 0) GTEST_SKIP() << "this Linux kernel has no Landlock";
  }
  TempDir root{"sandbox-test"};
};

TEST_F(WriteSandboxTest, WritesInsideTheFolderAndNowhereElse) {
  const fs::path inside = root.path() / "worker";
  const fs::path outside = root.path() / "cache" / "reference" / "C.npy";
  write_file_atomic(outside, "kopt's cached answer");
  const int answer = in_confined_child(inside, [&] {
    write_file_atomic(inside / "result.json", "{}");                       // the worker's own result
    if (open_for_writing(outside, 0) != EACCES) return 1;                  // rewrite a cached file
    if (open_for_writing(root.path() / "new.txt", O_CREAT) != EACCES) return 2;  // create beside it
    if (::unlink(outside.c_str()) == 0 || errno != EACCES) return 3;       // delete it
    if (::rename(outside.c_str(), (inside / "moved").c_str()) == 0) return 4;  // move it away
    return 0;
  });
  EXPECT_EQ(answer, 0);
  EXPECT_EQ(read_file(outside), "kopt's cached answer");
  EXPECT_TRUE(fs::exists(inside / "result.json"));
}

TEST_F(WriteSandboxTest, ChildrenOfTheConfinedProcessAreConfinedToo) {
  const fs::path target = root.path() / "left-alone.txt";
  write_file_atomic(target, "before");
  const int answer = in_confined_child(root.path() / "worker", [&] {
    const std::string command = "echo after > '" + target.string() + "' 2>/dev/null";
    return std::system(command.c_str()) == 0 ? 1 : 0;
  });
  EXPECT_EQ(answer, 0);
  EXPECT_EQ(read_file(target), "before");
}

TEST_F(WriteSandboxTest, ReadingStaysOpen) {
  const fs::path source = root.path() / "kernel.cu";
  write_file_atomic(source, "extern \"C\" void solve() {}");
  const int answer = in_confined_child(root.path() / "worker", [&] { return read_file(source).empty() ? 1 : 0; });
  EXPECT_EQ(answer, 0);
}

TEST_F(WriteSandboxTest, DevicesButNotSharedMemoryFiles) {
  if (!fs::is_directory("/dev/shm")) GTEST_SKIP() << "no /dev/shm";
  const fs::path memo = fs::path("/dev/shm") / ("kopt-sandbox-test-" + std::to_string(::getpid()));
  write_file_atomic(memo, "a memo shared between workers");
  const int answer = in_confined_child(root.path() / "worker", [&] {
    if (open_for_writing("/dev/null", 0) != 0) return 1;
    if (open_for_writing(memo, 0) != EACCES) return 2;
    return 0;
  });
  fs::remove(memo);
  EXPECT_EQ(answer, 0);
}

TEST_F(WriteSandboxTest, CannotSignalKopt) {
  if (landlock_abi() < 6) GTEST_SKIP() << "signal scoping needs Landlock ABI 6";
  const int answer = in_confined_child(root.path() / "worker", [] {
    return ::kill(::getppid(), 0) != 0 && errno == EPERM ? 0 : 1;
  });
  EXPECT_EQ(answer, 0);
}

TEST_F(WriteSandboxTest, ExtraFoldersAreOpenAndNamed) {
  const fs::path extra = root.path() / "driver-needs-this";
  fs::create_directories(extra);
  ::setenv("KOPT_WORKER_WRITABLE", extra.c_str(), 1);
  const int answer = in_confined_child(root.path() / "worker", [&] {
    const WriteSandbox again = confine_writes({root.path() / "worker" / "inner"});
    if (again.description.find(extra.string()) == std::string::npos) return 1;
    return open_for_writing(extra / "x", O_CREAT) == 0 ? 0 : 2;
  });
  ::unsetenv("KOPT_WORKER_WRITABLE");
  EXPECT_EQ(answer, 0);
}

TEST_F(WriteSandboxTest, SaysWhatConfinesIt) {
  const int answer = in_confined_child(root.path() / "worker", [&] {
    return confine_writes({root.path() / "worker" / "again"}).description.starts_with("landlock ABI ") ? 0 : 1;
  });
  EXPECT_EQ(answer, 0);
}

}  // namespace
}  // namespace kopt::run
