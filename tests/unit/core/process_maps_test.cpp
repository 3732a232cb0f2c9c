#include "kopt/core/process_maps.hpp"

#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

namespace kopt {
namespace {

// A forked child descends from this process; init and this process's
// parent do not.
TEST(IsSameOrDescendant, FollowsParentLinks) {
  const int self = static_cast<int>(getpid());
  EXPECT_TRUE(is_same_or_descendant(self, self));
  EXPECT_FALSE(is_same_or_descendant(1, self));
  EXPECT_FALSE(is_same_or_descendant(static_cast<int>(getppid()), self));
  int ready[2];
  ASSERT_EQ(pipe(ready), 0);
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    const pid_t grandchild = fork();
    if (grandchild == 0) {
      char go = 0;
      (void)!read(ready[0], &go, 1);  // lives until the parent has looked
      _exit(0);
    }
    waitpid(grandchild, nullptr, 0);
    _exit(0);
  }
  EXPECT_TRUE(is_same_or_descendant(static_cast<int>(child), self));
  EXPECT_FALSE(is_same_or_descendant(self, static_cast<int>(child)));
  (void)!write(ready[1], "x", 1);
  close(ready[0]);
  close(ready[1]);
  waitpid(child, nullptr, 0);
  EXPECT_FALSE(is_same_or_descendant(static_cast<int>(child), self));  // gone: no link to read
}

// A refused look is told from a process that is gone: a zombie (exited, not yet reaped) and a
// reaped child are not running.
TEST(ProcessRunning, IsTrueForALiveProcessOnly) {
  EXPECT_TRUE(process_running(static_cast<int>(getpid())));
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) _exit(0);
  for (int tries = 0; tries < 2000 && process_running(static_cast<int>(child)); ++tries) usleep(1000);
  EXPECT_FALSE(process_running(static_cast<int>(child)));  // a zombie until waited for
  waitpid(child, nullptr, 0);
  EXPECT_FALSE(process_running(static_cast<int>(child)));
}

}  // namespace
}  // namespace kopt
