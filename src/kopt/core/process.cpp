#include "kopt/core/process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <sstream>

#include "kopt/core/error.hpp"
#include "kopt/core/interrupt.hpp"
#include "kopt/core/stray_processes.hpp"

namespace kopt {
namespace fs = std::filesystem;
using Monotonic = std::chrono::steady_clock;  // a process's own deadlines, not the injectable kopt::Clock

std::string ProcessResult::outcome() const {
  if (!started) return fmt::format("could not be started: {}", start_error);
  if (timed_out) return fmt::format("timed out after {:.0f} s", seconds);
  if (signal != 0) return fmt::format("was killed by signal {} ({})", signal, strsignal(signal));
  return fmt::format("exited with status {}", exit_status);
}

std::string ProcessResult::output_tail(int lines) const {
  const std::string& text = err.find_first_not_of(" \n\t") != std::string::npos ? err : out;
  std::vector<std::string> kept;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.find_first_not_of(" \t\r") != std::string::npos) kept.push_back(line);
  }
  std::size_t first = kept.size() > static_cast<std::size_t>(lines) ? kept.size() - lines : 0;
  std::string tail;
  for (std::size_t i = first; i < kept.size(); ++i) tail += kept[i] + (i + 1 < kept.size() ? "\n" : "");
  return tail;
}

std::string shell_quote_command(const std::vector<std::string>& argv) {
  std::string command;
  for (const std::string& arg : argv) {
    if (!command.empty()) command += ' ';
    bool plain = !arg.empty() && arg.find_first_not_of(
        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,+@%") == std::string::npos;
    if (plain) {
      command += arg;
    } else {
      command += '\'';
      for (char c : arg) command += c == '\'' ? std::string("'\\''") : std::string(1, c);
      command += '\'';
    }
  }
  return command;
}

std::optional<fs::path> find_program(std::string_view name, const std::vector<fs::path>& extra_dirs) {
  if (name.find('/') != std::string_view::npos) {
    fs::path path(name);
    if (::access(path.c_str(), X_OK) == 0) return path;
    return std::nullopt;
  }
  std::vector<fs::path> dirs;
  if (const char* path = std::getenv("PATH")) {
    std::istringstream in(path);
    for (std::string dir; std::getline(in, dir, ':');) {
      if (!dir.empty()) dirs.emplace_back(dir);
    }
  }
  dirs.insert(dirs.end(), extra_dirs.begin(), extra_dirs.end());
  for (const fs::path& dir : dirs) {
    fs::path candidate = dir / name;
    if (::access(candidate.c_str(), X_OK) == 0 && !fs::is_directory(candidate)) return candidate;
  }
  return std::nullopt;
}

fs::path user_cuda_tools_dir() {
  if (const char* xdg = std::getenv("XDG_DATA_HOME"); xdg && *xdg) return fs::path(xdg) / "kopt" / "cuda-tools";
  if (const char* home = std::getenv("HOME"); home && *home) return fs::path(home) / ".local/share/kopt/cuda-tools";
  return {};
}

std::vector<fs::path> cuda_tool_dirs() {
  std::vector<fs::path> dirs;
  if (const char* home = std::getenv("CUDA_HOME"); home && *home) dirs.push_back(fs::path(home) / "bin");
  dirs.emplace_back("/usr/local/cuda/bin");
  if (fs::path tools = user_cuda_tools_dir(); !tools.empty()) dirs.push_back(tools / "bin");
  // $CUDA_HOME is often /usr/local/cuda itself: each folder once, in the first place it came.
  std::vector<fs::path> unique;
  for (fs::path& dir : dirs) {
    if (std::find(unique.begin(), unique.end(), dir.lexically_normal()) == unique.end()) {
      unique.push_back(dir.lexically_normal());
    }
  }
  return unique;
}

std::string cuda_tool_search_places() {
  std::vector<std::string> places{"PATH"};
  for (const fs::path& dir : cuda_tool_dirs()) places.push_back(dir.string());
  return fmt::format("{}", fmt::join(places, ", "));
}

fs::path find_cuda_tool(std::string_view name, const char* env_var, std::string_view how_to_get_it) {
  if (const char* named = std::getenv(env_var); named && *named) {
    if (auto found = find_program(named)) return *found;
    throw environment_error("{}={} is not an executable", env_var, named);
  }
  if (auto found = find_program(name, cuda_tool_dirs())) return *found;
  throw environment_error("{} not found (looked on {}): {}", name, cuda_tool_search_places(), how_to_get_it);
}

namespace {

// Closes a file descriptor on scope exit.
class Fd {
 public:
  explicit Fd(int fd = -1) : fd_(fd) {}
  ~Fd() { reset(); }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }
  void reset() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

 private:
  int fd_;
};

// In the child after fork(): only async-signal-safe calls until exec.
[[noreturn]] void exec_child(const ProcessSpec& spec, const std::vector<char*>& argv, int out_fd,
                             int err_fd, int report_fd, pid_t parent) {
  ::setpgid(0, 0);
  // Dies with kopt even when kopt is killed outright (SIGKILL, where it cleans nothing up);
  // the getppid check covers a parent that died before the prctl.
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) ::_exit(127);
  unblock_interrupt_signals_in_child();
  ::dup2(out_fd, STDOUT_FILENO);
  ::dup2(err_fd, STDERR_FILENO);
  if (spec.inherited_fd >= 0) {
    // The exec-error channel must not be the descriptor about to be replaced.
    if (report_fd == kInheritedFd) report_fd = ::fcntl(report_fd, F_DUPFD_CLOEXEC, kInheritedFd + 1);
    if (spec.inherited_fd == kInheritedFd) ::fcntl(kInheritedFd, F_SETFD, 0);  // dup2 onto itself keeps CLOEXEC
    else ::dup2(spec.inherited_fd, kInheritedFd);
  }
  int devnull = ::open("/dev/null", O_RDONLY);
  if (devnull >= 0) ::dup2(devnull, STDIN_FILENO);
  if (!spec.working_dir.empty() && ::chdir(spec.working_dir.c_str()) != 0) {
    int e = errno;
    (void)!::write(report_fd, &e, sizeof e);
    ::_exit(127);
  }
  ::execvp(argv[0], argv.data());
  int e = errno;
  (void)!::write(report_fd, &e, sizeof e);
  ::_exit(127);
}

// Hands each complete line of `captured` after `passed` to `on_line`, and moves `passed`
// past it.
void pass_on_lines(const std::string& captured, std::size_t& passed,
                   const std::function<void(std::string_view)>& on_line) {
  for (std::size_t end; (end = captured.find('\n', passed)) != std::string::npos; passed = end + 1) {
    on_line(std::string_view(captured).substr(passed, end - passed));
  }
}

}  // namespace

namespace {
// Held from fork until the child is tracked, and while strays are ended: a child another
// thread has just forked is never taken for a stray.
std::mutex& spawn_mutex() {
  static std::mutex mutex;
  return mutex;
}
}  // namespace

namespace {

// The child's environment, prepared before fork (setenv is not safe after): this process's,
// with the spec's variables replacing any of the same name.
std::vector<std::string> child_environment(const ProcessSpec& spec) {
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e) {
    std::string_view entry(*e);
    const bool overridden =
        std::ranges::any_of(spec.env, [&](const auto& variable) { return entry.starts_with(variable.first + "="); });
    if (!overridden) env.emplace_back(entry);
  }
  for (const auto& [key, value] : spec.env) env.push_back(key + "=" + value);
  return env;
}

// execve's form of `strings`: pointers into them, null-terminated.
std::vector<char*> null_terminated(std::vector<std::string>& strings) {
  std::vector<char*> pointers;
  for (std::string& s : strings) pointers.push_back(s.data());
  pointers.push_back(nullptr);
  return pointers;
}

// The run's time limit. While the program waits (ProcessSpec::waiting), the limit is pushed
// on; it starts anew when the wait is seen over (up to a poll's second late: generous, never
// short).
class RunDeadline {
 public:
  RunDeadline(const ProcessSpec& spec, Monotonic::time_point start)
      : waiting_(spec.waiting), limit_(std::chrono::duration_cast<Monotonic::duration>(spec.time_limit)),
        deadline_(start + limit_), was_waiting_(waiting_ && waiting_->load()) {}

  bool passed() {
    const bool waiting = waiting_ && waiting_->load();
    if (waiting || was_waiting_) deadline_ = std::max(deadline_, Monotonic::now() + limit_);
    was_waiting_ = waiting;
    return Monotonic::now() >= deadline_;
  }
  std::chrono::milliseconds left() const {
    return std::chrono::duration_cast<std::chrono::milliseconds>(deadline_ - Monotonic::now());
  }

 private:
  std::shared_ptr<const std::atomic<bool>> waiting_;
  Monotonic::duration limit_;
  Monotonic::time_point deadline_;
  bool was_waiting_;
};

// The child's standard output and error, read into the result as they come; each complete
// line of standard error also goes to ProcessSpec::on_error_line.
class ChildStreams {
 public:
  ChildStreams(const ProcessSpec& spec, ProcessResult& result, int out_fd, int err_fd)
      : spec_(spec), result_(result), fds_{pollfd{out_fd, POLLIN, 0}, pollfd{err_fd, POLLIN, 0}},
        sinks_{&result.out, &result.err} {}

  bool open() const { return open_streams_ > 0; }

  // Reads what is ready on the open streams within `wait_ms`; false when nothing was.
  bool read_ready(int wait_ms) {
    int ready = ::poll(fds_.data(), fds_.size(), wait_ms);
    if (ready <= 0) return false;
    for (std::size_t i = 0; i < fds_.size(); ++i) {
      if (fds_[i].fd < 0 || !(fds_[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      ssize_t n = ::read(fds_[i].fd, buffer_.data(), buffer_.size());
      if (n > 0) {
        sinks_[i]->append(buffer_.data(), static_cast<std::size_t>(n));
        if (sinks_[i] == &result_.err && spec_.on_error_line) pass_on_lines(result_.err, lines_passed_, spec_.on_error_line);
      } else if (n == 0 || errno != EINTR) {
        fds_[i].fd = -1;
        --open_streams_;
      }
    }
    return true;
  }

  // What the child wrote before it ended is still in the pipes (64 KiB each at most): read
  // it, for a bounded time, since a holder outside the group may keep on writing.
  void drain() {
    const auto drain_until = Monotonic::now() + std::chrono::milliseconds(200);
    while (open() && Monotonic::now() < drain_until && read_ready(0)) {
    }
  }

 private:
  const ProcessSpec& spec_;
  ProcessResult& result_;
  std::array<pollfd, 2> fds_;
  std::array<std::string*, 2> sinks_;
  std::size_t lines_passed_ = 0;  // bytes of result.err already handed to on_error_line
  int open_streams_ = 2;
  std::array<char, 65536> buffer_{};
};

// Reads the child's output until it ends (reaped: true) or its streams close; kills its group
// when the deadline passes.
bool read_until_exit(pid_t pid, ChildStreams& streams, RunDeadline& deadline, ProcessResult& result, int& status) {
  while (streams.open()) {
    const bool over = deadline.passed();
    const auto left = deadline.left();
    if (over || left.count() <= 0) {
      result.timed_out = true;
      ::kill(-pid, SIGKILL);
      return false;
    }
    // A short poll: a daemon the child left behind (setsid, so outside its group) can hold the
    // streams open for ever; the child's own end is what ends the wait, not theirs.
    streams.read_ready(static_cast<int>(std::min<long>(left.count(), 100)));
    if (::waitpid(pid, &status, WNOHANG) == pid) {
      // Its group goes with it now, before the drain: what it started can no longer write
      // (a result file the parent is about to read, say) while kopt reads the pipes.
      ::kill(-pid, SIGKILL);
      streams.drain();
      return true;
    }
  }
  return false;
}

// The streams can close before the process ends; the limit is enforced while it runs.
void await_exit(pid_t pid, RunDeadline& deadline, ProcessResult& result, int& status) {
  for (;;) {
    pid_t done = ::waitpid(pid, &status, WNOHANG);
    if (done == pid || (done < 0 && errno != EINTR)) return;
    if (deadline.passed() && !result.timed_out) {
      result.timed_out = true;
      ::kill(-pid, SIGKILL);
    }
    ::usleep(2000);
  }
}

}  // namespace

ProcessResult SystemProcessRunner::run(const ProcessSpec& spec) {
  ProcessResult result;
  if (spec.argv.empty()) {
    result.start_error = "empty command";
    return result;
  }
  int out_pipe[2], err_pipe[2], report_pipe[2];
  if (::pipe2(out_pipe, O_CLOEXEC) != 0 || ::pipe2(err_pipe, O_CLOEXEC) != 0 ||
      ::pipe2(report_pipe, O_CLOEXEC) != 0) {
    result.start_error = std::strerror(errno);
    return result;
  }
  Fd out_read(out_pipe[0]), out_write(out_pipe[1]);
  Fd err_read(err_pipe[0]), err_write(err_pipe[1]);
  Fd report_read(report_pipe[0]), report_write(report_pipe[1]);
  std::vector<std::string> env_storage = child_environment(spec);
  std::vector<char*> envp = null_terminated(env_storage);
  std::vector<std::string> args = spec.argv;
  std::vector<char*> argv = null_terminated(args);

  adopt_orphans();
  const auto start = Monotonic::now();
  const pid_t parent = ::getpid();
  std::unique_lock spawning(spawn_mutex());
  pid_t pid = ::fork();
  if (pid < 0) {
    result.start_error = std::strerror(errno);
    return result;
  }
  if (pid == 0) {
    environ = envp.data();
    exec_child(spec, argv, out_write.get(), err_write.get(), report_write.get(), parent);
  }
  ::setpgid(pid, pid);  // also in the parent, so the group exists before any kill below
  // Ended with kopt on SIGINT/SIGTERM/SIGHUP (core/interrupt.hpp) while it runs.
  track_child_group(pid);
  spawning.unlock();
  // Once the child has ended, so has everything it started (stray_processes.hpp).
  struct Untrack {
    pid_t group;
    ~Untrack() {
      untrack_child_group(group);
      std::lock_guard sweeping(spawn_mutex());
      end_stray_children(is_tracked_child_group);
    }
  } untrack{pid};
  out_write.reset();
  err_write.reset();
  report_write.reset();
  if (spec.on_start) spec.on_start(static_cast<int>(pid));

  int exec_errno = 0;
  if (::read(report_read.get(), &exec_errno, sizeof exec_errno) == sizeof exec_errno) {
    int status;
    ::waitpid(pid, &status, 0);
    result.start_error = fmt::format("{}: {}", spec.argv[0], std::strerror(exec_errno));
    return result;
  }
  result.started = true;

  RunDeadline deadline(spec, start);
  ChildStreams streams(spec, result, out_read.get(), err_read.get());
  int status = 0;
  if (!read_until_exit(pid, streams, deadline, result, status)) await_exit(pid, deadline, result, status);
  // Grandchildren that kept the pipes open are ended with their group.
  ::kill(-pid, SIGKILL);
  result.seconds = std::chrono::duration<double>(Monotonic::now() - start).count();
  if (WIFEXITED(status)) result.exit_status = WEXITSTATUS(status);
  if (WIFSIGNALED(status) && !result.timed_out) result.signal = WTERMSIG(status);
  return result;
}

}  // namespace kopt
