#include "kopt/workload/workload_run.hpp"

#include <sstream>
#include <thread>

#include <fmt/format.h>

#include "kopt/core/clock.hpp"
#include "kopt/core/file_queries.hpp"
#include "kopt/core/files.hpp"
#include "kopt/workload/run_metrics.hpp"

namespace kopt::workload {
namespace {

using nlohmann::json;

std::string failure_of(const ProcessResult& result, double timeout_seconds) {
  if (!result.started) return "could not start: " + result.start_error;
  if (result.timed_out) return fmt::format("hung: still running after {:g} s, killed", timeout_seconds);
  std::string tail = result.output_tail(1);
  if (result.signal != 0) return "crashed: " + result.outcome() + (tail.empty() ? "" : ": " + tail);
  return result.outcome() + (tail.empty() ? "" : ": " + tail);
}

std::string missing_text(const std::vector<std::string>& missing, const WorkloadSpec& spec) {
  std::string names;
  for (const std::string& name : missing) names += (names.empty() ? "" : ", ") + name;
  const MetricSource& source = spec.primary.source;
  return fmt::format("printed no {} (kopt reads {})", names,
                     source.json_key.empty() ? "the last line matching each metric's pattern"
                                             : "the last JSON object line holding each metric's key");
}

// Where the workload left its output: $KOPT_WORKLOAD_OUTPUT, else the spec's fixed path
// (removed before the run, so that a stale file is never judged), moved to where kopt keeps it.
void keep_output(const WorkloadSpec& spec, const std::filesystem::path& kept, RunRecord& record) {
  if (is_file(kept)) {
    record.output = kept;
    return;
  }
  const std::filesystem::path fixed = spec.folder / spec.accuracy->output;
  if (is_file(fixed)) {
    move_path(fixed, kept);
    record.output = kept;
    return;
  }
  record.ok = false;
  record.failure = fmt::format("wrote no output for the accuracy gate ({} or $KOPT_WORKLOAD_OUTPUT)", spec.accuracy->output);
}

}  // namespace

std::string RunSlot::key() const {
  return fmt::format("{}/{}{}{}/{}/{}", phase, arm, against.empty() ? "" : "~", against, round, position);
}

void to_json(json& out, const RunRecord& r) {
  out = {{"schema", kRunRecordSchema},
         {"key", r.slot.key()},
         {"phase", r.slot.phase},
         {"arm", r.slot.arm},
         {"against", r.slot.against},
         {"round", r.slot.round},
         {"position", r.slot.position},
         {"sequence", r.sequence},
         {"started_at", r.started_at},
         {"seconds", r.seconds},
         {"ok", r.ok},
         {"failure", r.failure},
         {"metrics", r.metrics},
         {"output", r.output.string()},
         {"gate", r.gate},
         {"gate_reason", r.gate_reason},
         {"interference",
          {{"load_average", r.interference.load_average},
           {"cpus", r.interference.cpus},
           {"gpu_known", r.interference.gpu_known},
           {"gpu_processes", r.interference.gpu_processes}}}};
}

RunRecord record_from_json(const json& in) {
  RunRecord r;
  r.slot = {in.at("phase"), in.at("arm"), in.value("against", ""), in.at("round"), in.at("position")};
  r.sequence = in.value("sequence", 0);
  r.started_at = in.value("started_at", "");
  r.seconds = in.value("seconds", 0.0);
  r.ok = in.at("ok");
  r.failure = in.value("failure", "");
  r.metrics = in.value("metrics", std::map<std::string, double>{});
  r.output = in.value("output", "");
  r.gate = in.value("gate", "none");
  r.gate_reason = in.value("gate_reason", "");
  if (const auto it = in.find("interference"); it != in.end()) {
    r.interference.load_average = it->value("load_average", -1.0);
    r.interference.cpus = it->value("cpus", 0);
    r.interference.gpu_known = it->value("gpu_known", false);
    r.interference.gpu_processes = it->value("gpu_processes", std::vector<std::string>{});
  }
  return r;
}

Interference probe_interference(ProcessRunner& runner) {
  Interference out;
  out.cpus = static_cast<int>(std::thread::hardware_concurrency());
  if (is_file("/proc/loadavg")) {
    std::istringstream in(read_file("/proc/loadavg"));
    in >> out.load_average;
  }
  if (!find_program("nvidia-smi")) return out;
  ProcessSpec query;
  query.argv = {"nvidia-smi", "--query-compute-apps=pid,process_name", "--format=csv,noheader"};
  query.time_limit = std::chrono::seconds(10);
  const ProcessResult result = runner.run(query);
  if (!result.ok()) return out;
  out.gpu_known = true;
  std::istringstream lines(result.out);
  for (std::string line; std::getline(lines, line);) {
    if (line.find_first_not_of(" \t\r") != std::string::npos) out.gpu_processes.push_back(line);
  }
  return out;
}

RunRecord run_workload_once(const WorkloadSpec& spec, const Arm& arm, const RunSlot& slot,
                            const std::filesystem::path& output_path, RunEnvironment& environment) {
  RunRecord record;
  record.slot = slot;
  record.interference = environment.interference();
  ProcessSpec process;
  process.argv = spec.command;
  process.working_dir = spec.folder;
  process.time_limit = std::chrono::duration<double>(spec.timeout_seconds);
  process.env = arm.env;
  process.env.emplace_back("KOPT_WORKLOAD_ARM", arm.name);
  process.env.emplace_back("KOPT_WORKLOAD_RUN", slot.key());
  if (spec.accuracy) {
    remove_file(output_path);
    remove_file(spec.folder / spec.accuracy->output);
    process.env.emplace_back("KOPT_WORKLOAD_OUTPUT", std::filesystem::absolute(output_path).string());
  }
  record.started_at = utc_timestamp();
  const ProcessResult result = environment.runner.run(process);
  record.seconds = result.seconds;
  if (!result.ok()) {
    record.failure = failure_of(result, spec.timeout_seconds);
    return record;
  }
  RunMetrics metrics = read_run_metrics(result.out, spec);
  record.metrics = std::move(metrics.values);
  record.ok = metrics.missing.empty();
  if (!record.ok) record.failure = missing_text(metrics.missing, spec);
  if (record.ok && spec.accuracy) keep_output(spec, output_path, record);
  return record;
}

}  // namespace kopt::workload
