#pragma once
// workload.toml: a user's workload, frozen before kopt measures it (`kopt workload`,
// docs/workloads.md). The command that runs it, how its metrics are read from its output, the
// primary metric's direction and minimum effect, the constraints a champion must keep, the
// accuracy gate, the original and the candidates (each selected by environment variables),
// how to measure, and what the trace predicts. Every field is checked when read: an unknown
// key, a wrong type or an impossible value is one line naming the file and the line.

#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace kopt::workload {

enum class Direction { lower, higher };  // which way is better

// Where a metric's value is read from a run's standard output: the last line that is a JSON
// object holding `json_key` (a number, or for a tail an array of numbers), or the first
// capture group of the last line matching `pattern` (ECMAScript regular expression).
struct MetricSource {
  std::string json_key;
  std::string pattern;
};

struct MetricRule {
  std::string name;
  MetricSource source;
  Direction direction = Direction::lower;
};

// A secondary metric that may not get worse by more than `max_worse` (0.05 = 5 %): proven
// within it by the upper end of its paired interval, else the candidate cannot be champion.
struct Constraint {
  MetricRule metric;
  double max_worse = 0;
};

// Per-request latencies in one run (a JSON array): each run contributes its own percentiles
// ("p50", "p99", ...), metrics that constraints may name.
struct TailRule {
  MetricSource source;
  std::vector<double> percentiles;  // in (0, 100)
  Direction direction = Direction::lower;
};

// The accuracy gate: a candidate's output against the original's, on every candidate run,
// before any of its times count. Either a file the workload writes (at `output`, also named
// by $KOPT_WORKLOAD_OUTPUT), compared element by element (.npy, or raw little-endian `dtype`),
// or a command that judges the two outputs (exit 0: pass).
struct AccuracyGate {
  std::string output;                    // relative to the workload's folder
  std::string dtype;                     // for a raw file: float32 | float16 | float64 | int32 | int64 | uint8
  double atol = 0, rtol = 0;
  std::vector<std::string> command;      // optional
};

struct Arm {
  std::string name;
  std::vector<std::pair<std::string, std::string>> env;
  int line = 1;  // where workload.toml defines it, for the refusals that name it
};

struct MeasureSettings {
  int warmup_runs = 1;       // per arm, before its first counted run; discarded
  int resolution_runs = 5;   // the original alone, first: its spread is the session's resolution
  int min_rounds = 6;        // paired rounds before a verdict may stop the comparison
  int max_rounds = 30;
  int audit_rounds = 10;     // the final audit's paired rounds (at least min_rounds)
  double level = 0.95;
  double budget_minutes = 0; // of the whole session's runs; 0: none
};

// What a trace of the original says the candidate can gain: the replaced kernels' share of
// the traced time and the kernel's own speedup over them.
struct Prediction {
  std::string trace;                     // a PyTorch-profiler trace or an nsys SQLite export
  std::vector<std::string> kernels;      // substrings of the names of the kernels replaced
  double kernel_speedup = 0;             // the new kernel against the kernels it replaces
  std::string candidate;                 // which candidate it predicts (default: the first)
};

struct WorkloadSpec {
  std::filesystem::path file;            // workload.toml
  std::filesystem::path folder;          // where the command runs, and relative paths start
  std::string name;
  std::vector<std::string> command;
  double timeout_seconds = 600;
  std::vector<std::string> inputs;       // files or folders whose content is frozen
  MetricRule primary;
  double min_effect = 0.02;
  std::vector<MetricRule> secondaries;   // recorded with every run, constrained or not
  std::vector<Constraint> constraints;
  std::optional<TailRule> tail;
  std::optional<AccuracyGate> accuracy;
  Arm original{"original", {}};
  std::vector<Arm> candidates;
  MeasureSettings measure;
  std::optional<Prediction> prediction;
};

// Reads `path` (a workload.toml, or a folder holding one).
WorkloadSpec read_workload_spec(const std::filesystem::path& path);
WorkloadSpec parse_workload_spec(std::string_view text, const std::filesystem::path& file);

std::string_view direction_name(Direction direction);

}  // namespace kopt::workload
