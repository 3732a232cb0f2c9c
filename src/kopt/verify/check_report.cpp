// The CheckReport: its verdict and cause, whether its runs cover every case and seed, a Triton
// host's refusal for its failure's message, and check.json (kopt.check/1), the document `kopt check` writes and prints.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <sstream>

#include "kopt/verify/check.hpp"
#include "kopt/verify/check_job.hpp"
#include "kopt/verify/sanitizer.hpp"
#include "kopt/run/problem_codec.hpp"

namespace kopt::verify {
using nlohmann::json;

bool CheckReport::passed() const {
  if (failure) return false;
  if (strict && !source_findings.empty()) return false;
  for (const RunRecord& run : runs) {
    if (!run.passed()) return false;
  }
  if (sanitizers && !sanitizer_cause(*sanitizers).empty()) return false;
  return !runs.empty();
}

std::string CheckReport::cause() const {
  if (failure) return failure->message;
  // Each finding has its own FAIL line already: the cause counts them rather than repeat one.
  if (strict && !source_findings.empty()) {
    return fmt::format("--strict: the source audit named {} line(s) of the kernel's source; nothing was run",
                       source_findings.size());
  }
  for (const RunRecord& run : runs) {
    if (!run.passed()) return fmt::format("{} (case {}, seed {})", run.findings.front().message, run.case_name, run.seed);
  }
  if (runs.empty()) return "no runs";
  return sanitizers ? sanitizer_cause(*sanitizers) : "";
}

std::string coverage_gap(const CheckReport& report) {
  std::vector<std::vector<int>> seen(report.cases.size(), std::vector<int>(report.seeds.size(), 0));
  for (const RunRecord& run : report.runs) {
    const auto seed = static_cast<std::size_t>(std::ranges::find(report.seeds, run.seed) - report.seeds.begin());
    if (run.case_index < 0 || static_cast<std::size_t>(run.case_index) >= seen.size() || seed >= report.seeds.size()) {
      return fmt::format("a run of case index {} and seed {}, which the check did not ask for", run.case_index, run.seed);
    }
    ++seen[static_cast<std::size_t>(run.case_index)][seed];
  }
  for (std::size_t c = 0; c < seen.size(); ++c) {
    for (std::size_t s = 0; s < seen[c].size(); ++s) {
      if (seen[c][s] != 1) {
        return fmt::format("{} runs of case {} and seed {}", seen[c][s], report.cases[c].name, report.seeds[s]);
      }
    }
  }
  return "";
}

std::string host_refusal_of(const std::string& stderr_tail) {
  std::string last;
  std::istringstream in(stderr_tail);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) last = line;
  }
  return last.starts_with("kopt: ") ? ": " + last.substr(6) : "";
}

namespace {

json source_findings_to_json(const std::vector<spec::SourceFinding>& findings) {
  json out = json::array();
  for (const spec::SourceFinding& f : findings) {
    out.push_back({{"category", f.category}, {"what", f.what}, {"file", f.file}, {"line", f.line}, {"text", f.text}});
  }
  return out;
}

}  // namespace

json check_report_to_json(const CheckReport& report) {
  json runs = json::array();
  for (const RunRecord& run : report.runs) runs.push_back(run_record_to_json(run));
  json cases = json::array();
  for (const spec::BoundCase& c : report.cases) cases.push_back(run::case_to_json(c));
  json build = nullptr;
  if (report.build) {
    build = {{"library", report.build->library.string()},
             {"key", report.build->key},
             {"command", report.build->command},
             {"cache_hit", report.build->cache_hit},
             {"compile_seconds", report.build->compile_seconds},
             {"resources", report.build->resources}};
  }
  json failure = nullptr;
  if (report.failure) {
    failure = {{"kind", report.failure->kind}, {"message", report.failure->message}, {"detail", report.failure->detail}};
  }
  json document = {{"schema", "kopt.check/1"},
          {"kernel", report.kernel.string()},
          {"problem", report.problem_name},
          {"entry", report.entry},
          {"guesses", report.guesses},
          {"device", report.device},
          {"arch", report.arch},
          {"nvcc_version", report.nvcc_version},
          {"build", build},
          {"reference", report.reference},
          {"seeds", report.seeds},
          {"cases", cases},
          {"runs", runs},
          {"failure", failure},
          {"from_cache", report.from_cache},
          {"source_audit", source_findings_to_json(report.source_findings)},
          {"strict", report.strict},
          {"sandbox", report.sandbox},
          {"phase_seconds", {{"probe", report.phase_seconds.probe},
                             {"compile", report.phase_seconds.compile},
                             {"kernel_worker", report.phase_seconds.kernel_worker},
                             {"reference", report.phase_seconds.reference},
                             {"comparison", report.phase_seconds.comparison},
                             {"total", report.phase_seconds.total}}},
          {"worker_phase_seconds", check_worker_phases_to_json(report.worker_phases)},
          {"warnings", report.warnings},
          {"passed", report.passed()},
          {"cause", report.cause()}};
  if (report.sanitizers) document["sanitizers"] = sanitizer_runs_to_json(*report.sanitizers);
  if (const auto& split = report.reference_seconds) {
    document["reference_seconds"] = {{"inputs", split->inputs},
                                     {"runner", split->runner},
                                     {"runner_load", split->runner_load},
                                     {"runner_compute", split->runner_compute},
                                     {"runner_save", split->runner_save},
                                     {"outputs", split->outputs}};
  }
  return document;
}

}  // namespace kopt::verify
