#include "kopt/core/host_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "kopt/core/error.hpp"
#include "kopt/core/files.hpp"

namespace kopt {
namespace {

using ::testing::HasSubstr;

class HostLockTest : public ::testing::Test {
 protected:
  void SetUp() override { ::setenv("KOPT_LOCK_DIR", dir.path().c_str(), 1); }
  void TearDown() override { ::unsetenv("KOPT_LOCK_DIR"); }

  // Another process holds `name` for `seconds`, saying who it is as kopt does; returns its pid
  // once it holds the lock.
  pid_t hold_elsewhere(const std::string& name, double seconds) {
    int ready[2];
    EXPECT_EQ(::pipe(ready), 0);
    const pid_t pid = ::fork();
    if (pid == 0) {
      const std::string file = dir.path().string() + "/" + name + ".lock";
      const int fd = ::open(file.c_str(), O_RDWR | O_CREAT, 0666);
      ::flock(fd, LOCK_EX);
      const char who[] = "pid 4242: kopt bench examples/vector_add, since 2026-12-01T09:00:00Z\n";
      [[maybe_unused]] auto written = ::write(fd, who, sizeof who - 1);
      [[maybe_unused]] auto told = ::write(ready[1], "x", 1);
      ::usleep(static_cast<useconds_t>(seconds * 1e6));
      ::_exit(0);
    }
    char byte;
    [[maybe_unused]] auto read = ::read(ready[0], &byte, 1);
    ::close(ready[0]);
    ::close(ready[1]);
    return pid;
  }

  TempDir dir{"host-lock-test"};
};

TEST_F(HostLockTest, WaitsForAnotherProcessAndSaysWhomItWaitsFor) {
  const pid_t holder = hold_elsewhere("gpu-GPU-1234", 0.8);
  std::vector<std::string> said;
  const auto started = std::chrono::steady_clock::now();
  {
    HostLock lock("gpu-GPU-1234", [&](const std::string& line) { said.push_back(line); });
    EXPECT_GE(std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count(), 0.5);
    // Now this process says who holds it.
    EXPECT_THAT(read_file(dir.path() / "gpu-GPU-1234.lock"), HasSubstr("pid " + std::to_string(::getpid())));
  }
  ASSERT_EQ(said.size(), 1u);
  EXPECT_THAT(said[0], HasSubstr("waiting for gpu-GPU-1234: held by pid 4242: kopt bench examples/vector_add"));
  int status = 0;
  ::waitpid(holder, &status, 0);
}

TEST_F(HostLockTest, OneProcessSharesItsHoldAndFreesItWithTheLast) {
  std::vector<std::string> said;
  auto on_wait = [&](const std::string& line) { said.push_back(line); };
  {
    HostLock outer("gpu-0", on_wait);
    HostLock inner("gpu-0", on_wait);  // the same process: no wait, no deadlock
  }
  EXPECT_TRUE(said.empty());
  // Released: another process takes it at once.
  const std::string file = (dir.path() / "gpu-0.lock").string();
  const int fd = ::open(file.c_str(), O_RDWR);
  ASSERT_GE(fd, 0);
  EXPECT_EQ(::flock(fd, LOCK_EX | LOCK_NB), 0);
  ::close(fd);
}

TEST_F(HostLockTest, AFolderThatCannotBeMadeIsNamed) {
  ::setenv("KOPT_LOCK_DIR", "/proc/kopt-locks-here", 1);
  EXPECT_THROW({ HostLock lock("gpu-0", nullptr); }, Error);
}

}  // namespace
}  // namespace kopt
