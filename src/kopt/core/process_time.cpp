#include "kopt/core/process_time.hpp"

#include <filesystem>

namespace kopt {

ProcessKind process_kind_of(const ProcessSpec& spec) {
  const std::string program = spec.argv.empty() ? "" : std::filesystem::path(spec.argv.front()).filename().string();
  if (program == "nvcc") return ProcessKind::compile;
  if (program == "cuobjdump" || program == "nvdisasm") return ProcessKind::tool;
  return ProcessKind::device;
}

ProcessTimes operator-(const ProcessTimes& later, const ProcessTimes& earlier) {
  return {.compile_s = later.compile_s - earlier.compile_s,
          .device_s = later.device_s - earlier.device_s,
          .tool_s = later.tool_s - earlier.tool_s,
          .compile_or_device_s = later.compile_or_device_s - earlier.compile_or_device_s,
          .compile_processes_s = later.compile_processes_s - earlier.compile_processes_s};
}

void ProcessTimeLedger::BusyTime::enter(Clock::time_point now) {
  process_seconds = processes_at(now);
  last = now;
  if (active++ == 0) since = now;
}

void ProcessTimeLedger::BusyTime::leave(Clock::time_point now) {
  process_seconds = processes_at(now);
  last = now;
  if (--active == 0) seconds += std::chrono::duration<double>(now - since).count();
}

double ProcessTimeLedger::BusyTime::processes_at(Clock::time_point now) const {
  return process_seconds + active * std::chrono::duration<double>(now - last).count();
}

double ProcessTimeLedger::BusyTime::at(Clock::time_point now) const {
  return seconds + (active > 0 ? std::chrono::duration<double>(now - since).count() : 0.0);
}

ProcessTimeLedger::BusyTime& ProcessTimeLedger::busy_of(ProcessKind kind) {
  switch (kind) {
    case ProcessKind::compile: return compile_;
    case ProcessKind::tool: return tool_;
    case ProcessKind::device: break;
  }
  return device_;
}

void ProcessTimeLedger::started(ProcessKind kind) {
  std::lock_guard lock(mutex_);
  const auto now = Clock::now();
  busy_of(kind).enter(now);
  if (kind != ProcessKind::tool) compile_or_device_.enter(now);
}

void ProcessTimeLedger::finished(ProcessKind kind) {
  std::lock_guard lock(mutex_);
  const auto now = Clock::now();
  busy_of(kind).leave(now);
  if (kind != ProcessKind::tool) compile_or_device_.leave(now);
}

ProcessTimes ProcessTimeLedger::times() const {
  std::lock_guard lock(mutex_);
  const auto now = Clock::now();
  return {.compile_s = compile_.at(now),
          .device_s = device_.at(now),
          .tool_s = tool_.at(now),
          .compile_or_device_s = compile_or_device_.at(now),
          .compile_processes_s = compile_.processes_at(now)};
}

ProcessResult TimedProcessRunner::run(const ProcessSpec& spec) {
  const ProcessKind kind = process_kind_of(spec);
  ledger_.started(kind);
  struct Finish {  // also when the inner runner throws
    ProcessTimeLedger& ledger;
    ProcessKind kind;
    ~Finish() { ledger.finished(kind); }
  } finish{ledger_, kind};
  return inner_.run(spec);
}

}  // namespace kopt
