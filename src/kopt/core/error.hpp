#pragma once
// Errors that end a command. Expected failures of a *kernel* (wrong output, fault, hang)
// are values in result types, never exceptions; an Error means kopt cannot go on: bad
// usage or input, or a missing environment. Each carries the exit code docs/design.md §3 fixes
// and a one-line message naming the cause.

#include <fmt/format.h>

#include <stdexcept>
#include <string>

namespace kopt {

enum class ExitCode : int {
  ok = 0,
  kernel_failed = 1,  // incorrect, crashed, hung, slower than required
  bad_input = 2,      // bad usage, unreadable or invalid files
  environment = 3,    // no GPU, no nvcc, no counters
};

class Error : public std::runtime_error {
 public:
  Error(ExitCode code, std::string message) : std::runtime_error(std::move(message)), code_(code) {}
  ExitCode code() const { return code_; }

 private:
  ExitCode code_;
};

template <typename... Args>
Error input_error(fmt::format_string<Args...> format, Args&&... args) {
  return Error(ExitCode::bad_input, fmt::format(format, std::forward<Args>(args)...));
}

template <typename... Args>
Error environment_error(fmt::format_string<Args...> format, Args&&... args) {
  return Error(ExitCode::environment, fmt::format(format, std::forward<Args>(args)...));
}

}  // namespace kopt
