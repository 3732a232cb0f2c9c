#pragma once
// Where the time of a piece of work went, by the processes it ran: compiling (nvcc), driving
// the GPU (kopt's worker processes that check, time and profile, ncu, a reference runner),
// and other tools (cuobjdump, nvdisasm). What is left of the wall time is kopt's own: the
// loop's bookkeeping, planning, reading files and machine code. The loop reports it per
// branch (docs/loop.md, "Loop overhead").

#include <chrono>
#include <mutex>

#include "kopt/core/process.hpp"

namespace kopt {

enum class ProcessKind { compile, device, tool };

// nvcc: compile; cuobjdump, nvdisasm: tool; anything else: device.
ProcessKind process_kind_of(const ProcessSpec& spec);

// Seconds of wall time during which at least one process of a kind ran: processes that ran
// at the same time (parallel compiles) count once.
struct ProcessTimes {
  double compile_s = 0;
  double device_s = 0;
  double tool_s = 0;
  double compile_or_device_s = 0;  // the union of the first two (they may overlap)
  // The compiles' own seconds added up: compile_processes_s / compile_s is how many ran at
  // once on average while any ran (1: one after another).
  double compile_processes_s = 0;
};

ProcessTimes operator-(const ProcessTimes& later, const ProcessTimes& earlier);

// The ProcessTimes of every process started through its TimedProcessRunners. Thread-safe.
class ProcessTimeLedger {
 public:
  void started(ProcessKind kind);
  void finished(ProcessKind kind);
  ProcessTimes times() const;  // so far, counting processes still running up to now

 private:
  using Clock = std::chrono::steady_clock;
  // Busy time of overlapping intervals (counted while `active` > 0), and the processes'
  // seconds added up (`active` integrated over time).
  struct BusyTime {
    int active = 0;
    Clock::time_point since;  // when `active` last rose from 0
    Clock::time_point last;   // when `active` last changed
    double seconds = 0;
    double process_seconds = 0;
    void enter(Clock::time_point now);
    void leave(Clock::time_point now);
    double at(Clock::time_point now) const;
    double processes_at(Clock::time_point now) const;
  };
  BusyTime& busy_of(ProcessKind kind);

  mutable std::mutex mutex_;
  BusyTime compile_, device_, tool_, compile_or_device_;
};

// A ProcessRunner that runs through another and enters each process in a ledger. Several
// runners (one per thread, say) may share one ledger.
class TimedProcessRunner final : public ProcessRunner {
 public:
  TimedProcessRunner(ProcessRunner& inner, ProcessTimeLedger& ledger) : inner_(inner), ledger_(ledger) {}
  ProcessResult run(const ProcessSpec& spec) override;

 private:
  ProcessRunner& inner_;
  ProcessTimeLedger& ledger_;
};

}  // namespace kopt
