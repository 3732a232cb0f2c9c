#pragma once
// One run of the workload: a fresh process of the frozen command, with one arm's environment,
// its metrics read from its output, its output file kept for the accuracy gate, and what else
// was on the machine while it ran. A run that hangs, crashes or prints no metric is a
// recorded failure with its reason, never kopt's.

#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kopt/core/process.hpp"
#include "kopt/workload/workload_spec.hpp"

namespace kopt::workload {

inline constexpr std::string_view kRunRecordSchema = "kopt.workload_run/1";

// What shared the machine with a run: the host's load and the other processes on the GPU.
struct Interference {
  double load_average = -1;                 // 1-minute load of the host; -1 unknown
  int cpus = 0;
  std::vector<std::string> gpu_processes;   // "pid name" of other compute processes; empty: none seen
  bool gpu_known = false;                   // whether the GPU could be asked at all
};

// A run's place in the session's plan: the key under which its record is found on resume.
struct RunSlot {
  std::string phase;     // warmup, resolution, gate, compare, audit
  std::string arm;       // original or a candidate's name
  std::string against;   // the candidate a paired round compares (compare, audit); else empty
  int round = 0;         // the index within the phase
  int position = 0;      // 0 or 1: which of the round's two runs
  std::string key() const;
};

struct RunRecord {
  RunSlot slot;
  int sequence = 0;                         // its place among all the session's runs
  std::string started_at;                   // UTC
  double seconds = 0;                       // wall time of the process
  bool ok = false;
  std::string failure;                      // why not ok: hung, crashed, exited, printed no metric
  std::map<std::string, double> metrics;
  std::filesystem::path output;             // the kept output file (empty: none)
  std::string gate = "none";                // none | passed | failed
  std::string gate_reason;
  Interference interference;
};

void to_json(nlohmann::json& out, const RunRecord& record);
RunRecord record_from_json(const nlohmann::json& in);

// How a session reaches the machine: tests substitute fakes for the process runner and the
// interference probe.
struct RunEnvironment {
  ProcessRunner& runner;
  std::function<Interference()> interference;
};

// The probe that asks /proc/loadavg and nvidia-smi (where installed; 10 s at most).
Interference probe_interference(ProcessRunner& runner);

// Runs `arm` once in `slot`, keeping its output file as `output_path` (where the spec has an
// accuracy gate). Never throws for the workload's own failures.
RunRecord run_workload_once(const WorkloadSpec& spec, const Arm& arm, const RunSlot& slot,
                            const std::filesystem::path& output_path, RunEnvironment& environment);

}  // namespace kopt::workload
