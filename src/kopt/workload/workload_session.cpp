#include "kopt/workload/workload_session.hpp"

#include <algorithm>
#include <map>
#include <sstream>

#include <fmt/format.h>

#include "kopt/core/clock.hpp"
#include "kopt/core/error.hpp"
#include "kopt/core/file_queries.hpp"
#include "kopt/core/files.hpp"
#include "kopt/core/folder_lock.hpp"
#include "kopt/measure/statistics.hpp"
#include "kopt/workload/accuracy_gate.hpp"
#include "kopt/workload/paired_statistics.hpp"
#include "kopt/workload/session_judgement.hpp"
#include "kopt/workload/run_metrics.hpp"
#include "kopt/workload/workload_documents.hpp"
#include "kopt/workload/workload_prediction.hpp"

namespace kopt::workload {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

struct OriginalFailed {
  RunRecord record;
};
struct BudgetSpent {};

// Each metric's values from the two arms of a comparison, round by round.
struct PairedMetrics {
  std::map<std::string, std::vector<double>> original, candidate;
  void add(const RunRecord& o, const RunRecord& c) {
    for (const auto& [name, value] : o.metrics) {
      if (!c.metrics.contains(name)) continue;
      original[name].push_back(value);
      candidate[name].push_back(c.metrics.at(name));
    }
  }
  std::size_t rounds(const std::string& metric) const {
    return original.contains(metric) ? original.at(metric).size() : 0;
  }
};

json env_json(const Arm& arm) {
  json env = json::object();
  for (const auto& [name, value] : arm.env) env[name] = value;
  return env;
}

std::string file_key(const RunSlot& slot) {
  std::string key = slot.key();
  std::ranges::replace(key, '/', '.');
  std::ranges::replace(key, '~', '-');
  return key;
}

class Session {
 public:
  Session(const WorkloadSpec& spec, fs::path folder, SessionHooks& hooks, double budget_seconds)
      : spec_(spec), folder_(std::move(folder)), hooks_(hooks), budget_seconds_(budget_seconds) {}

  json run() {
    load_journal();
    json doc = base_document();
    try {
      measure_original(doc);
      measure_candidates(doc);
      doc["status"] = "complete";
    } catch (const OriginalFailed& failed) {
      doc["status"] = "original_failed";
      doc["failure"] = fmt::format("the original's run {} {}", failed.record.slot.key(), failed.record.failure);
    } catch (const BudgetSpent&) {
      doc["status"] = "budget_spent";
    }
    conclude(doc);
    return doc;
  }

 private:
  // The journal: one JSON line per finished run. A line cut short by a kill is skipped (that
  // run is made again); the latest record of a place in the plan wins.
  void load_journal() {
    const fs::path journal = folder_ / "journal.jsonl";
    if (!is_file(journal)) return;
    const std::string text = read_file(journal);
    if (!text.empty() && text.back() != '\n') append_to_file(journal, "\n");  // end the line a kill cut short
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);) {
      json record = json::parse(line, nullptr, false);
      if (!record.is_object() || record.value("schema", "") != kRunRecordSchema) continue;
      RunRecord parsed = record_from_json(record);
      seconds_used_ += parsed.seconds;
      next_sequence_ = std::max(next_sequence_, parsed.sequence + 1);
      journal_[parsed.slot.key()] = std::move(parsed);
    }
  }

  json base_document() const {
    json arms = json::array();
    for (const Arm& arm : spec_.candidates) arms.push_back({{"name", arm.name}, {"env", env_json(arm)}});
    return {{"schema", kWorkloadSchema},
            {"workload", spec_.name},
            {"session", folder_.string()},
            {"primary", {{"metric", spec_.primary.name}, {"direction", direction_name(spec_.primary.direction)},
                         {"min_effect", spec_.min_effect}}},
            {"level", spec_.measure.level},
            {"original", {{"name", spec_.original.name}, {"env", env_json(spec_.original)}}},
            {"arms", arms}};
  }

  bool is_original(const RunSlot& slot) const { return slot.arm == spec_.original.name; }

  RunRecord run(const RunSlot& slot, const Arm& arm) {
    if (auto it = journal_.find(slot.key()); it != journal_.end() && (it->second.ok || !is_original(slot))) {
      if (is_original(slot)) note_reference(it->second);
      return it->second;
    }
    if (budget_seconds_ > 0 && seconds_used_ >= budget_seconds_) throw BudgetSpent{};
    RunRecord record = run_workload_once(spec_, arm, slot, output_path(slot), hooks_.environment);
    record.sequence = next_sequence_++;
    seconds_used_ += record.seconds;
    if (record.ok && spec_.accuracy) gate(record);
    append_to_file(folder_ / "journal.jsonl", json(record).dump() + "\n");
    journal_[slot.key()] = record;
    log(record);
    if (!record.ok && is_original(slot)) throw OriginalFailed{record};
    return record;
  }

  fs::path output_path(const RunSlot& slot) const {
    const std::string extension = spec_.accuracy ? fs::path(spec_.accuracy->output).extension().string() : "";
    return folder_ / "outputs" / (file_key(slot) + (extension.empty() ? ".out" : extension));
  }

  // The original's first output is what every later output is gated against.
  void note_reference(const RunRecord& record) {
    if (reference_output_.empty() && record.ok && !record.output.empty()) reference_output_ = record.output;
  }

  void gate(RunRecord& record) {
    if (is_original(record.slot) && reference_output_.empty()) {
      note_reference(record);
      return;
    }
    const GateResult result = judge_output(*spec_.accuracy, spec_.folder, reference_output_, record.output,
                                           hooks_.environment.runner, spec_.timeout_seconds);
    record.gate = result.passed ? "passed" : "failed";
    record.gate_reason = result.reason;
    if (result.passed) {
      remove_file(record.output);  // outputs are kept only where they tell something
      record.output.clear();
    } else if (!is_original(record.slot)) {
      record.ok = false;
      record.failure = "failed the accuracy gate: " + result.reason;
    }
  }

  void log(const RunRecord& r) {
    const auto primary = r.metrics.find(spec_.primary.name);
    hooks_.log(fmt::format("workload: {} {}: {}", r.slot.phase, r.slot.arm,
                           !r.ok ? r.failure
                                 : fmt::format("{} {:g}{}", spec_.primary.name, primary->second,
                                               r.gate == "passed" ? ", gate passed" : "")));
  }

  void measure_original(json& doc) {
    for (int i = 0; i < spec_.measure.warmup_runs; ++i) run({"warmup", spec_.original.name, "", i, 0}, spec_.original);
    std::vector<double> values;
    for (int i = 0; i < spec_.measure.resolution_runs; ++i) {
      values.push_back(run({"resolution", spec_.original.name, "", i, 0}, spec_.original).metrics.at(spec_.primary.name));
    }
    const Resolution resolution = resolution_of(values, spec_.measure.level);
    doc["resolution"] = resolution;
    doc["resolution"]["resolves_min_effect"] = resolution.half_width <= spec_.min_effect / 2;
  }

  void measure_candidates(json& doc) {
    doc["candidates"] = json::array();
    for (const Arm& arm : spec_.candidates) {
      json result = {{"name", arm.name}, {"env", env_json(arm)}, {"status", "not_run"}};
      doc["candidates"].push_back(result);
      doc["candidates"].back() = measure_candidate(arm);
    }
  }

  json measure_candidate(const Arm& arm) {
    json result = {{"name", arm.name}, {"env", env_json(arm)}};
    const int gate_runs = std::max(spec_.measure.warmup_runs, spec_.accuracy ? 1 : 0);
    for (int i = 0; i < gate_runs; ++i) {
      const RunRecord r = run({"gate", arm.name, "", i, 0}, arm);
      if (!r.ok) return rejected(result, r);
    }
    result["gate"] = spec_.accuracy ? "passed" : "none";
    PairedMetrics samples;
    for (int round = 0; round < spec_.measure.max_rounds; ++round) {
      const auto [original, candidate] = run_round("compare", arm, round);
      if (!candidate.ok) return rejected(result, candidate);
      samples.add(original, candidate);
      if (round + 1 >= spec_.measure.min_rounds && settled(judge(samples))) break;
    }
    result["status"] = "compared";
    result.update(judge(samples));
    return result;
  }

  // Round `round` of a paired comparison: original first in even rounds, the candidate first in
  // odd ones. A candidate that fails is not run again in the round.
  std::pair<RunRecord, RunRecord> run_round(const std::string& phase, const Arm& arm, int round) {
    const RunSlot original_slot{phase, spec_.original.name, arm.name, round, round % 2};
    const RunSlot candidate_slot{phase, arm.name, "", round, 1 - round % 2};
    if (round % 2 == 0) {
      RunRecord o = run(original_slot, spec_.original);
      return {o, run(candidate_slot, arm)};
    }
    RunRecord c = run(candidate_slot, arm);
    if (!c.ok) return {RunRecord{}, c};
    return {run(original_slot, spec_.original), c};
  }

  json rejected(json result, const RunRecord& run) const {
    result["status"] = "rejected";
    result["gate"] = run.gate == "failed" ? "failed" : result.value("gate", "none");
    result["reason"] = fmt::format("{} run {}: {}", run.slot.phase, run.slot.round, run.failure);
    result["times_counted"] = false;
    return result;
  }

  json judge(const PairedMetrics& s) const {
    const double level = spec_.measure.level;
    const std::string& primary = spec_.primary.name;
    json out = {{"rounds", s.rounds(primary)},
                {"primary", paired_verdict(s.original.at(primary), s.candidate.at(primary), spec_.primary.direction,
                                           spec_.min_effect, level)},
                {"medians", {{"original", measure::median(s.original.at(primary))},
                             {"candidate", measure::median(s.candidate.at(primary))}}}};
    json constraints = json::array();
    for (const Constraint& c : spec_.constraints) {
      const std::string& name = c.metric.name;
      if (!s.original.contains(name)) continue;
      constraints.push_back(check_constraint(name, c.max_worse, s.original.at(name), s.candidate.at(name),
                                             c.metric.direction, level));
    }
    out["constraints"] = constraints;
    out["secondaries"] = secondaries(s);
    return out;
  }

  // Every metric but the primary, each with its own direction: informational, never a verdict.
  json secondaries(const PairedMetrics& s) const {
    json out = json::object();
    for (const auto& [name, values] : s.original) {
      if (name == spec_.primary.name) continue;
      out[name] = paired_verdict(values, s.candidate.at(name), direction_of(name), spec_.min_effect, spec_.measure.level);
    }
    return out;
  }

  Direction direction_of(const std::string& metric) const {
    for (const MetricRule& rule : spec_.secondaries) {
      if (rule.name == metric) return rule.direction;
    }
    for (const Constraint& c : spec_.constraints) {
      if (c.metric.name == metric) return c.metric.direction;
    }
    return spec_.tail ? spec_.tail->direction : Direction::lower;
  }

  static bool settled(const json& judged) {
    const std::string verdict = judged.at("primary").at("verdict");
    if (verdict == "ambiguous") return false;
    if (verdict != "better") return true;
    return std::ranges::none_of(judged.at("constraints"), [](const json& c) { return c.at("status") == "unproven"; });
  }

  void conclude(json& doc) {
    choose_champion(doc);
    if (doc.value("status", "") == "complete" && !doc.at("champion").is_null()) run_audit(doc);
    doc["drift"] = drift_of(original_primary_in_order(journal_, spec_), spec_.min_effect);
    doc["interference"] = interference_summary(journal_);
    doc["original_gate"] = original_gate_summary(journal_, spec_.original.name);
    doc["runs"] = journal_.size();
    doc["run_seconds"] = seconds_used_;
    if (spec_.prediction) doc["prediction"] = prediction_of(spec_, doc);
    doc["claim"] = claim_of(doc);
  }

  void run_audit(json& doc) {
    const std::string name = doc.at("champion");
    const Arm& arm = *std::ranges::find(spec_.candidates, name, &Arm::name);
    PairedMetrics samples;
    json audit = {{"champion", name}, {"rounds_planned", spec_.measure.audit_rounds}};
    try {
      for (int round = 0; round < spec_.measure.audit_rounds; ++round) {
        const auto [original, candidate] = run_round("audit", arm, round);
        if (!candidate.ok) {
          audit["status"] = "champion_failed";
          audit["reason"] = fmt::format("audit run {}: {}", round, candidate.failure);
          doc["audit"] = audit;
          return;
        }
        samples.add(original, candidate);
      }
    } catch (const OriginalFailed& failed) {
      audit["status"] = "original_failed";
      audit["reason"] = failed.record.failure;
      doc["audit"] = audit;
      return;
    } catch (const BudgetSpent&) {
      audit["status"] = "budget_spent";
      doc["audit"] = audit;
      return;
    }
    audit.update(judge(samples));
    json judged = audit;
    judged["status"] = "compared";
    const std::string why = why_not_champion(judged);
    audit["status"] = why.empty() ? "confirmed" : "not_confirmed";
    if (!why.empty()) audit["reason"] = why;
    doc["audit"] = audit;
  }

  const WorkloadSpec& spec_;
  fs::path folder_;
  SessionHooks& hooks_;
  double budget_seconds_ = 0;
  Journal journal_;
  int next_sequence_ = 0;
  double seconds_used_ = 0;
  fs::path reference_output_;
};

// An earlier session of another freeze is set aside (renamed, never removed) when asked.
void prepare_folder(const fs::path& folder, bool fresh) {
  if (fresh && path_exists(folder)) {
    move_path(folder, fs::path(folder.string() + ".old-" + utc_timestamp("%Y%m%d-%H%M%S")));
  }
  create_folders(folder / "outputs");
}

void check_freeze(const fs::path& folder, const json& now) {
  const fs::path file = folder / "frozen.json";
  if (!is_file(file)) {
    write_file_atomic(file, now.dump(2) + "\n");
    return;
  }
  const json frozen = json::parse(read_file(file), nullptr, false);
  if (!frozen.is_object() || frozen.value("schema", "") != kFreezeSchema) {
    throw input_error("{}: not a workload session's freeze (kopt.workload_freeze/1)", file.string());
  }
  if (std::optional<std::string> difference = freeze_difference(frozen, now)) {
    throw input_error("{}: {} since this session was frozen ({}); run with --fresh to start a new session",
                      folder.string(), *difference, frozen.value("frozen_at", "?"));
  }
}

}  // namespace

fs::path default_session_folder(const WorkloadSpec& spec) { return spec.folder / "workload_session"; }

json run_workload_session(const WorkloadSpec& spec, const SessionOptions& options, SessionHooks& hooks) {
  // A prediction that cannot be made is said before the first run, not after the last.
  if (spec.prediction) predict_gain(*spec.prediction, system::read_system_trace(spec.folder / spec.prediction->trace));
  prepare_folder(options.folder, options.fresh);
  const FolderLock lock(options.folder, "workload session");
  check_freeze(options.folder, freeze_workload(spec, hooks.probe(spec)));
  const double budget_minutes = options.budget_minutes.value_or(spec.measure.budget_minutes);
  Session session(spec, options.folder, hooks, budget_minutes * 60);
  json doc = session.run();
  doc["freeze"] = json::parse(read_file(options.folder / "frozen.json"));
  write_file_atomic(options.folder / "workload.json", doc.dump(2) + "\n");
  write_file_atomic(options.folder / "summary.md", format_workload_summary(doc));
  write_file_atomic(options.folder / "handoff.md", format_workload_handoff(doc));
  return doc;
}

}  // namespace kopt::workload
