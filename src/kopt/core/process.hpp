#pragma once
// Runs external tools (nvcc, python, ncu, the kopt worker) with a time limit and captured
// output. The only place kopt starts processes; tests substitute a FakeProcessRunner.

#include <atomic>
#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace kopt {

struct ProcessSpec {
  std::vector<std::string> argv;  // argv[0] is the program, looked up on PATH
  std::filesystem::path working_dir;                          // empty: inherit
  std::vector<std::pair<std::string, std::string>> env;       // added to the inherited environment
  std::chrono::duration<double> time_limit = std::chrono::seconds(600);  // in seconds
  // Called with each line of standard error (without its newline) as it arrives, while the
  // program runs; the whole stream is still captured in ProcessResult::err.
  std::function<void(std::string_view line)> on_error_line;
  // A file descriptor of kopt's that the program gets as descriptor kInheritedFd (the write
  // end of the timing witness's pipe: measure/sample_witness.hpp); -1: none.
  int inherited_fd = -1;
  // Called with the child's process id once it has started (before it has necessarily
  // exec'd): the timing worker's code witness (measure/code_witness.hpp) watches it.
  std::function<void(int pid)> on_start;
  // While this holds true, time_limit does not run: it counts from the moment it turns false
  // (a worker started before its job, waiting for it: run/worker_launcher.hpp). nullptr: the
  // limit counts from the start.
  std::shared_ptr<const std::atomic<bool>> waiting;
};

inline constexpr int kInheritedFd = 3;

struct ProcessResult {
  bool started = false;       // false: the program could not be run at all (see start_error)
  std::string start_error;
  int exit_status = -1;       // valid when exited normally
  int signal = 0;             // non-zero: killed by this signal
  bool timed_out = false;     // killed by kopt at the time limit
  std::string out;            // captured standard output
  std::string err;            // captured standard error
  double seconds = 0;         // wall time

  bool ok() const { return started && !timed_out && signal == 0 && exit_status == 0; }
  // "exited with status 2", "was killed by signal 11 (Segmentation fault)", "timed out after 5 s"
  std::string outcome() const;
  // The last `lines` non-empty lines of stderr (stdout when stderr is empty).
  std::string output_tail(int lines = 20) const;
};

// "nvcc -shared ..." quoted so it can be pasted into a shell.
std::string shell_quote_command(const std::vector<std::string>& argv);

class ProcessRunner {
 public:
  virtual ~ProcessRunner() = default;
  virtual ProcessResult run(const ProcessSpec& spec) = 0;
};

// Runs for real: fork/exec in a new process group; at the time limit the whole group is
// killed (SIGKILL), so a hung kernel's worker and anything it started end together. The run
// ends when the child does, not when its output pipes close: the group is killed as the child
// is reaped, what is left in the pipes is read (200 ms at most), and whatever left the group
// (setsid) is ended with the other strays (core/stray_processes.hpp) before run() returns.
class SystemProcessRunner final : public ProcessRunner {
 public:
  ProcessResult run(const ProcessSpec& spec) override;
};

// The first executable called `name` in $PATH, then in `extra_dirs`.
std::optional<std::filesystem::path> find_program(std::string_view name,
                                                  const std::vector<std::filesystem::path>& extra_dirs = {});

// $KOPT_PYTHON, else python3 on PATH; throws an environment Error when there is none.
// Defined with the toolchain lookup it shares (core/context.cpp).
std::filesystem::path find_python();

// Where CUDA tools are looked for after $PATH: $CUDA_HOME/bin, /usr/local/cuda/bin, and the
// folder ./setup installs NVIDIA's cuobjdump and nvdisasm wheels into when the toolkit lacks
// them (user_cuda_tools_dir()/bin), so that no PATH has to be set for them.
std::vector<std::filesystem::path> cuda_tool_dirs();

// "PATH, <dir>, <dir>...": where find_cuda_tool looks, for messages that say so.
std::string cuda_tool_search_places();

// ${XDG_DATA_HOME:-$HOME/.local/share}/kopt/cuda-tools; empty when neither variable is set.
std::filesystem::path user_cuda_tools_dir();

// A CUDA tool: the program named by $<env_var> when that is set, else `name` on PATH or in
// cuda_tool_dirs(). Throws an environment Error (exit 3) saying where it looked and
// `how_to_get_it`.
std::filesystem::path find_cuda_tool(std::string_view name, const char* env_var, std::string_view how_to_get_it);

}  // namespace kopt
