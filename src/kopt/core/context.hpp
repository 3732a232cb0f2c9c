#pragma once
// What every command and the loop work through, made once by the front end and handed down:
// the process runner, the tools kopt runs (each looked for once), the cache folder, the clock
// and the progress line. Tests hand down a fake of each (FixedToolchain, ManualClock), so a
// capability runs the same code on a test machine without a GPU as on the real one.

#include <chrono>
#include <filesystem>
#include <map>
#include <optional>
#include <string>

#include "kopt/core/clock.hpp"
#include "kopt/core/process.hpp"
#include "kopt/core/progress_line.hpp"

namespace kopt {

enum class Tool { nvcc, cuobjdump, nvdisasm, ncu, python };

std::string_view tool_name(Tool tool);

// Where each tool is. Looked for on first use and then kept, so one command never finds two
// different compilers; a missing tool is an environment Error (exit 3) saying how to get it.
class Toolchain {
 public:
  virtual ~Toolchain() = default;
  virtual std::filesystem::path path(Tool tool) = 0;
};

// $KOPT_NVCC, $KOPT_CUOBJDUMP, $KOPT_NVDISASM, $KOPT_NCU, $KOPT_PYTHON when set, else the
// tool on PATH and in cuda_tool_dirs() (python3 on PATH only).
class SystemToolchain final : public Toolchain {
 public:
  std::filesystem::path path(Tool tool) override;

 private:
  std::map<Tool, std::filesystem::path> found_;
};

// Tools at fixed paths, for tests: one not given is missing (an environment Error).
class FixedToolchain final : public Toolchain {
 public:
  explicit FixedToolchain(std::map<Tool, std::filesystem::path> paths) : paths_(std::move(paths)) {}
  std::filesystem::path path(Tool tool) override;

 private:
  std::map<Tool, std::filesystem::path> paths_;
};


struct Context {
  ProcessRunner& runner;
  Toolchain& tools;
  std::filesystem::path cache_dir;
  Clock& clock = steady_clock();
  ProgressLine* progress = nullptr;  // none: nothing is shown
};

}  // namespace kopt
