#include "kopt/run/host_agents.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <pthread.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <link.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <sys/wait.h>
#include <unistd.h>
#include <signal.h>
#include <sys/time.h>
#include <time.h>

#include <algorithm>
#include <condition_variable>
#include <cstdint>
#include <fstream>
#include <mutex>
#include <thread>

#include "kopt/core/secret.hpp"

namespace kopt::run {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

// /proc/self/timers as Linux 6 prints two timers (fs/proc/base.c, show_timer).
TEST(PosixTimerIds, AreReadFromProcSelfTimers) {
  EXPECT_THAT(parse_posix_timer_ids("ID: 0\nsignal: 14/0000000000000000\nnotify: signal/pid.77\nClockID: 1\n"
                                    "ID: 12\nsignal: 0/0000000000000000\nnotify: thread/pid.77\nClockID: 0\n"),
              ElementsAre(0, 12));
  EXPECT_THAT(parse_posix_timer_ids(""), IsEmpty());
  EXPECT_THAT(parse_posix_timer_ids("ID: x\n"), IsEmpty());
}

TEST(ChildIds, AreReadFromAChildrenFile) {
  EXPECT_THAT(parse_child_ids("1234 1240 "), ElementsAre(1234, 1240));
  EXPECT_THAT(parse_child_ids(""), IsEmpty());
}

// A child process that outlives the call is an agent too (a forked hog), where the kernel
// offers /proc/self/task/TID/children.
TEST(HostAgents, FindAChildProcess) {
  const HostAgents before = HostAgents::now();
  if (!std::ifstream(fmt::format("/proc/self/task/{}/children", gettid()))) {
    GTEST_SKIP() << "no CONFIG_PROC_CHILDREN";
  }
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    pause();
    _exit(0);
  }
  const std::vector<std::string> newcomers = HostAgents::now().newcomers_since(before);
  kill(child, SIGKILL);
  waitpid(child, nullptr, 0);
  EXPECT_THAT(newcomers, ElementsAre(HasSubstr(fmt::format("process {}", child))));
  EXPECT_THAT(HostAgents::now().newcomers_since(before), IsEmpty());
}

TEST(HasEnded, ReadsTheStateAfterTheLastParenthesis) {
  EXPECT_FALSE(has_ended("4242 (hog) S 1 4242 4242 0 -1"));
  EXPECT_FALSE(has_ended("4242 (a (b) c) R 1 4242"));
  EXPECT_TRUE(has_ended("4242 (a) Z) Z 1 4242"));
  EXPECT_TRUE(has_ended("4242 (hog) X 1"));
  EXPECT_TRUE(has_ended(""));  // the process is gone
}

// A child that has ended but was never waited for (a zombie) can do nothing more.
TEST(HostAgents, AZombieIsNotAnAgent) {
  if (!std::ifstream(fmt::format("/proc/self/task/{}/children", gettid()))) GTEST_SKIP() << "no CONFIG_PROC_CHILDREN";
  const HostAgents before = HostAgents::now();
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) _exit(0);
  siginfo_t info{};
  ASSERT_EQ(waitid(P_PID, static_cast<id_t>(child), &info, WEXITED | WNOWAIT), 0);  // ended, left a zombie
  const std::vector<std::string> newcomers = HostAgents::now().newcomers_since(before);
  waitpid(child, nullptr, 0);
  EXPECT_THAT(newcomers, IsEmpty());
}

// A daemon made by a double fork leaves the forking process's children. The timing worker is
// its orphans' reaper (keep_orphans_in_census), so the daemon comes back as its child, and the
// census sees it.
TEST(HostAgents, FindADaemonizedGrandchildWhereTheProcessReapsOrphans) {
  if (!std::ifstream(fmt::format("/proc/self/task/{}/children", gettid()))) GTEST_SKIP() << "no CONFIG_PROC_CHILDREN";
  // Put back what was there: the process runner makes this process a reaper once for good
  // (core/stray_processes.hpp), and a test of it that runs later in this process needs it.
  int was_reaper = 0;
  prctl(PR_GET_CHILD_SUBREAPER, &was_reaper, 0, 0, 0);
  keep_orphans_in_census();
  const HostAgents before = HostAgents::now();
  int pipe_ends[2];
  ASSERT_EQ(pipe(pipe_ends), 0);
  const pid_t middle = fork();
  ASSERT_GE(middle, 0);
  if (middle == 0) {
    setsid();
    const pid_t daemon = fork();
    if (daemon == 0) {
      pause();
      _exit(0);
    }
    if (write(pipe_ends[1], &daemon, sizeof daemon) != sizeof daemon) _exit(1);
    _exit(0);  // the daemon is orphaned
  }
  pid_t daemon = 0;
  ASSERT_EQ(read(pipe_ends[0], &daemon, sizeof daemon), static_cast<ssize_t>(sizeof daemon));
  waitpid(middle, nullptr, 0);
  std::vector<std::string> newcomers;
  for (int tries = 0; tries < 200; ++tries) {  // reparenting follows the middle's exit
    newcomers = HostAgents::now().newcomers_since(before);
    if (!newcomers.empty()) break;
    usleep(5000);
  }
  kill(daemon, SIGKILL);
  waitpid(daemon, nullptr, 0);
  prctl(PR_SET_CHILD_SUBREAPER, was_reaper, 0, 0, 0);
  close(pipe_ends[0]);
  close(pipe_ends[1]);
  EXPECT_THAT(newcomers, ElementsAre(HasSubstr(fmt::format("process {}", daemon))));
}

// A thread that is still there after the census is a newcomer, named as it named itself; one
// that was started and joined in between is not.
TEST(HostAgents, FindAThreadStillRunningButNotOneThatEnded) {
  const HostAgents before = HostAgents::now();
  ASSERT_TRUE(before.readable());
  std::thread([] {}).join();
  EXPECT_THAT(HostAgents::now().newcomers_since(before), IsEmpty());

  std::mutex mutex;
  std::condition_variable released;
  bool release = false;
  std::thread sleeper([&] {
    pthread_setname_np(pthread_self(), "saboteur");
    std::unique_lock<std::mutex> lock(mutex);
    released.wait(lock, [&] { return release; });
  });
  // The name is set by the thread itself: wait until it shows.
  std::vector<std::string> newcomers;
  for (int tries = 0; tries < 1000; ++tries) {
    newcomers = HostAgents::now().newcomers_since(before);
    if (!newcomers.empty() && newcomers.front().find("saboteur") != std::string::npos) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  {
    std::lock_guard<std::mutex> lock(mutex);
    release = true;
  }
  released.notify_one();
  sleeper.join();
  ASSERT_EQ(newcomers.size(), 1u);
  EXPECT_THAT(newcomers.front(), HasSubstr("'saboteur'"));
}

// Timers fire later without a thread of their own in the census: an armed interval timer
// (alarm, setitimer) and a POSIX timer are newcomers too.
TEST(HostAgents, FindArmedTimers) {
  const HostAgents before = HostAgents::now();
  struct sigaction ignore {};
  ignore.sa_handler = SIG_IGN;
  struct sigaction previous {};
  sigaction(SIGALRM, &ignore, &previous);
  itimerval in_an_hour{.it_interval = {}, .it_value = {.tv_sec = 3600, .tv_usec = 0}};
  ASSERT_EQ(setitimer(ITIMER_REAL, &in_an_hour, nullptr), 0);
  sigevent event{};
  event.sigev_notify = SIGEV_NONE;
  timer_t timer{};
  ASSERT_EQ(timer_create(CLOCK_MONOTONIC, &event, &timer), 0);

  const std::vector<std::string> newcomers = HostAgents::now().newcomers_since(before);
  itimerval off{};
  setitimer(ITIMER_REAL, &off, nullptr);
  timer_delete(timer);
  sigaction(SIGALRM, &previous, nullptr);

  EXPECT_THAT(newcomers, ::testing::Contains(std::string("interval timer ITIMER_REAL")));
  // /proc/self/timers needs CONFIG_CHECKPOINT_RESTORE; where it is missing, only the interval timer shows.
  if (std::ifstream("/proc/self/timers")) {
    EXPECT_THAT(newcomers, ::testing::Contains(HasSubstr("POSIX timer")));
  }
  EXPECT_THAT(HostAgents::now().newcomers_since(before), IsEmpty());
}

// /proc/self/status as Linux 6 prints it around the lines the census reads.
TEST(SystemCallInterceptors, AreReadFromProcSelfStatus) {
  const SystemCallInterceptors found = parse_system_call_interceptors(
      "Name:\tkopt\nTracerPid:\t4242\nNoNewPrivs:\t1\nSeccomp:\t2\nSeccomp_filters:\t3\nSpeculation_Store_Bypass:\tx\n");
  EXPECT_EQ(found.tracer, 4242);
  EXPECT_EQ(found.seccomp_mode, 2);
  EXPECT_EQ(found.seccomp_filters, 3);
  const SystemCallInterceptors none = parse_system_call_interceptors("Name:\tkopt\nTracerPid:\t0\n");
  EXPECT_EQ(none.tracer, 0);
  EXPECT_EQ(none.seccomp_mode, 0);
  EXPECT_EQ(none.seccomp_filters, 0);
}

TEST(HostAgents, NameASeccompFilterAndATracerThatCameSince) {
  const HostAgents before = HostAgents::of({1}, {}, {}, {}, {.seccomp_mode = 2, .seccomp_filters = 1});
  const HostAgents after = HostAgents::of({1}, {}, {}, {}, {.seccomp_mode = 2, .seccomp_filters = 2, .tracer = 77});
  EXPECT_THAT(after.interceptors_since(before), ElementsAre("1 more seccomp filter(s)", HasSubstr("tracer process 77")));
  EXPECT_THAT(after.newcomers_since(before), IsEmpty());     // not an agent that launches work: named apart
  EXPECT_THAT(before.interceptors_since(before), IsEmpty());  // a filter already there (a container's)
}

// What installs an interceptor for real does it in a child, so that this test process keeps
// none: `body`'s return value is the child's exit status (kCannotHere: this machine does not
// allow it), -1 when the child did not exit.
constexpr int kCannotHere = 77;
int exit_status_in_child(int (*body)()) {
  const pid_t child = fork();
  if (child < 0) return -1;
  if (child == 0) _exit(body());
  int status = 0;
  if (waitpid(child, &status, 0) != child || !WIFEXITED(status)) return -1;
  return WEXITSTATUS(status);
}

// Whether the census now names one interceptor, and that one is `what`.
int named_alone(const HostAgents& before, const char* what) {
  const std::vector<std::string> found = HostAgents::now().interceptors_since(before);
  return found.size() == 1 && found[0].find(what) != std::string::npos ? 0 : 1;
}

// An allow-everything filter is all it takes to be seen.
TEST(HostAgents, FindASeccompFilterInstalledForReal) {
  const int status = exit_status_in_child([] {
    const HostAgents before = HostAgents::now();
    sock_filter allow{static_cast<unsigned short>(BPF_RET | BPF_K), 0, 0, SECCOMP_RET_ALLOW};
    sock_fprog program{1, &allow};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 || prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program) != 0) {
      return kCannotHere;
    }
    return named_alone(before, "seccomp");
  });
  if (status == kCannotHere) GTEST_SKIP() << "seccomp filters cannot be installed here";
  EXPECT_EQ(status, 0) << "the census did not name the filter alone";
}

// /proc/self/status's SigCgt as Linux 6 prints it: 16 hex digits, signal n at bit n - 1.
TEST(SignalMask, SaysWhichSignalsHaveAHandler) {
  EXPECT_TRUE(mask_has_signal("\t0000000040000000", SIGSYS));   // SIGSYS is 31: bit 30
  EXPECT_FALSE(mask_has_signal("\t0000000180004a02", SIGSYS));  // what a Python process catches
  EXPECT_TRUE(mask_has_signal("\t0000000180004a02", SIGINT));
  EXPECT_TRUE(mask_has_signal("\t0000000180004a02", 33));
  EXPECT_FALSE(mask_has_signal("\t0000000180004a02", 65));     // past the mask
  EXPECT_FALSE(mask_has_signal("\tzz", SIGSYS));
  EXPECT_FALSE(mask_has_signal("", SIGSYS));
}

TEST(HostAgents, NameASigsysHandlerThatCameSince) {
  const SystemCallInterceptors caught = parse_system_call_interceptors("Name:\tkopt\nSigCgt:\t0000000040004a02\n");
  EXPECT_TRUE(caught.sigsys_caught);
  const HostAgents before = HostAgents::of({1}, {}, {}, {});
  const HostAgents after = HostAgents::of({1}, {}, {}, {}, caught);
  EXPECT_THAT(after.interceptors_since(before), ElementsAre(HasSubstr("a SIGSYS handler")));
  EXPECT_THAT(after.interceptors_since(after), IsEmpty());  // one there before the kernel loaded is not its
  EXPECT_THAT(after.interceptors_since(before, /*sigsys_handlers_counted=*/false), IsEmpty());  // a Python host's
}

// Syscall user dispatch traps a thread's system calls to a SIGSYS handler without any seccomp
// filter; what /proc shows of it is the handler. One installed for real is seen.
TEST(HostAgents, FindASigsysHandlerInstalledForReal) {
  const int status = exit_status_in_child([] {
    const HostAgents before = HostAgents::now();
    struct sigaction answer {};
    answer.sa_handler = [](int) {};
    if (sigaction(SIGSYS, &answer, nullptr) != 0) return kCannotHere;
    return named_alone(before, "SIGSYS");
  });
  if (status == kCannotHere) GTEST_SKIP() << "no SIGSYS handler can be installed here";
  EXPECT_EQ(status, 0) << "the census did not name the handler alone";
}

#if defined(__x86_64__)
// What tests/gpu/kernels/cheat_dispatched_seeds does, here on the CPU: syscall user dispatch
// sends the calls this executable makes by its own instructions (kopt's getrandom in
// core/secret.cpp, linked in) to a SIGSYS handler that answers them, while calls from shared
// libraries go through. No filter shows; the census must name the handler.
std::uint64_t dispatched_answer = 0;
volatile char dispatch_selector = SYSCALL_DISPATCH_FILTER_ALLOW;

int executable_code_end(dl_phdr_info* info, std::size_t, void* end) {
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& segment = info->dlpi_phdr[i];
    if (segment.p_type == PT_LOAD && (segment.p_flags & PF_X)) {
      auto* last = static_cast<std::uintptr_t*>(end);
      *last = std::max<std::uintptr_t>(*last, info->dlpi_addr + segment.p_vaddr + segment.p_memsz);
    }
  }
  return 1;  // the first object is the executable
}

constexpr int kNotAnswered = 2;

TEST(HostAgents, FindSyscallUserDispatchByItsHandler) {
  const int status = exit_status_in_child([] {
    const HostAgents before = HostAgents::now();
    struct sigaction answer {};
    answer.sa_flags = SA_SIGINFO;
    answer.sa_sigaction = [](int, siginfo_t*, void* context) {
      auto* registers = static_cast<ucontext_t*>(context)->uc_mcontext.gregs;
      *reinterpret_cast<std::uint64_t*>(registers[REG_RDI]) = ++dispatched_answer;
      registers[REG_RAX] = sizeof dispatched_answer;
    };
    std::uintptr_t end = 0;
    dl_iterate_phdr(executable_code_end, &end);
    const std::uintptr_t top = std::uintptr_t{1} << 47;
    if (sigaction(SIGSYS, &answer, nullptr) != 0 || end == 0 ||
        prctl(PR_SET_SYSCALL_USER_DISPATCH, PR_SYS_DISPATCH_ON, end, top - end, &dispatch_selector) != 0) {
      return kCannotHere;
    }
    dispatch_selector = SYSCALL_DISPATCH_FILTER_BLOCK;
    const bool answered = fresh_secret_64() == 1;  // the handler's number, not the OS's
    const int named = named_alone(before, "SIGSYS");
    dispatch_selector = SYSCALL_DISPATCH_FILTER_ALLOW;
    return answered ? named : kNotAnswered;
  });
  if (status == kCannotHere) GTEST_SKIP() << "no syscall user dispatch here (Linux 5.11 and later)";
  ASSERT_NE(status, kNotAnswered) << "the dispatch did not answer kopt's getrandom";
  EXPECT_EQ(status, 0) << "the census did not name the handler alone";
}
#endif

// A census that could not read /proc (no threads at all) compares to nothing.
TEST(HostAgents, AnUnreadableCensusFindsNothing) {
  const HostAgents unreadable = HostAgents::of({}, {}, {}, {});
  const HostAgents one = HostAgents::of({1}, {}, {}, {});
  const HostAgents two = HostAgents::of({1, 2}, {9}, {7}, {"ITIMER_REAL"});
  EXPECT_FALSE(unreadable.readable());
  EXPECT_THAT(two.newcomers_since(unreadable), IsEmpty());
  EXPECT_THAT(unreadable.newcomers_since(one), IsEmpty());
  EXPECT_THAT(two.newcomers_since(one),
              ElementsAre(HasSubstr("thread 2"), HasSubstr("process 9"), "POSIX timer 7", "interval timer ITIMER_REAL"));
}

}  // namespace
}  // namespace kopt::run
