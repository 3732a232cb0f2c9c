#include "kopt/verify/sanitizer.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <regex>
#include <tuple>

#include "kopt/core/files.hpp"
#include "kopt/core/process.hpp"
#include "kopt/spec/problem_work.hpp"
#include "kopt/verify/check.hpp"

namespace kopt::verify {
namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

constexpr std::string_view kPrefix = "========= ";

// The lines of the tool's own text, without their prefix ("=========" alone is a blank line).
std::vector<std::string> tool_lines(std::string_view text) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    std::string_view line = text.substr(start, end - start);
    if (line.starts_with(kPrefix)) lines.emplace_back(line.substr(kPrefix.size()));
    else if (line.starts_with("=========")) lines.emplace_back();
    start = end + 1;
  }
  return lines;
}

// Lines that start no finding: the banner, the summaries, the host backtrace's frames.
bool starts_finding(const std::string& line) {
  if (line.empty() || line.front() == ' ') return false;
  for (const char* not_one : {"COMPUTE-SANITIZER", "ERROR SUMMARY", "RACECHECK SUMMARY", "LEAK SUMMARY",
                              "Target application returned", "This tool", "Saved host backtrace", "Host Frame"}) {
    if (line.starts_with(not_one)) return false;
  }
  return true;
}

void read_detail(const std::string& line, SanitizerFinding& finding) {
  static const std::regex at(R"(^\s+at (.+?)(?: in (\S+:\d+))?$)");
  static const std::regex by(R"(^\s+by thread (.+)$)");
  std::smatch m;
  if (finding.kernel.empty() && std::regex_match(line, m, at)) {
    finding.kernel = m[1];
    finding.location = m[2];
  } else if (finding.thread.empty() && std::regex_match(line, m, by)) {
    finding.thread = m[1];
  }
}

}  // namespace

SanitizerText parse_sanitizer_output(std::string_view text) {
  static const std::regex summary(R"(^ERROR SUMMARY: (\d+) errors?)");
  // racecheck on the H200 (CUDA 13.0) ends a clean run with its own summary and no ERROR
  // SUMMARY: "RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)".
  static const std::regex race_summary(R"(^RACECHECK SUMMARY: \d+ hazards? displayed \((\d+) errors?, (\d+) warnings?\))");
  SanitizerText out;
  bool error_summary = false;
  for (const std::string& line : tool_lines(text)) {
    std::smatch m;
    if (std::regex_search(line, m, summary)) {
      out.summary = error_summary = true;
      out.errors = std::stoi(m[1]);
    } else if (std::regex_search(line, m, race_summary)) {
      out.summary = true;
      if (!error_summary) out.errors = std::stoi(m[1]) + std::stoi(m[2]);
    } else if (starts_finding(line)) {
      out.findings.push_back({.what = line});
    } else if (!out.findings.empty() && !line.empty()) {
      read_detail(line, out.findings.back());
    }
  }
  return out;
}

namespace {

// The case whose arguments take the fewest bytes: the tools are slow, and an indexing fault
// shows on a small case as on a large one.

}  // namespace

std::pair<std::string, std::string> sanitizer_status(const SanitizerText& text, std::string_view tool,
                                                      std::string_view unfinished) {
  if (text.errors > 0 || !text.findings.empty()) return {"findings", ""};
  if (!unfinished.empty()) {
    return {"failed", fmt::format("the check under {} did not finish ({}), so its clean summary covers nothing", tool,
                                  unfinished)};
  }
  return {"clean", ""};
}

namespace {

SanitizerRun run_tool(std::string_view tool, const fs::path& sanitizer, const CheckJob& job, CheckContext& context) {
  run::WorkerSettings worker = context.worker;
  // --error-exitcode 0: a finding is read from the text; the worker's own exit stays its own.
  worker.launcher = {sanitizer.string(), "--tool", std::string(tool), "--print-limit", "20", "--error-exitcode", "0"};
  // The tools instrument every access: minutes where the kernel took milliseconds.
  worker.time_limit = std::max(worker.time_limit, std::chrono::duration<double>(600));
  TempDir work("sanitize", context.cache_dir / "tmp");
  const run::WorkerOutcome outcome = run::run_worker(context.runner, worker, check_job_to_json(job), work.path());
  const SanitizerText text = parse_sanitizer_output(outcome.output);
  SanitizerRun run{.tool = std::string(tool), .case_name = job.cases.front().name, .errors = text.errors,
                   .findings = text.findings};
  if (!text.summary) {
    run.status = "failed";
    run.detail = outcome.timed_out ? fmt::format("{} did not finish within {:.0f} s", tool, worker.time_limit.count())
                                   : fmt::format("{} gave no summary: {}", tool,
                                                 outcome.failure.empty() ? outcome.stderr_tail : outcome.failure);
  } else {
    const std::string unfinished = outcome.result ? "" : (outcome.failure.empty() ? "no result" : outcome.failure);
    std::tie(run.status, run.detail) = sanitizer_status(text, tool, unfinished);
  }
  return run;
}

}  // namespace

std::vector<SanitizerRun> run_sanitizers(const spec::Problem& problem, const CheckReport& report, CheckContext& context) {
  const fs::path sanitizer = find_cuda_tool("compute-sanitizer", "KOPT_COMPUTE_SANITIZER",
                                            "it comes with the CUDA toolkit (cuda-sanitizer package)");
  const CheckJob job{.library = report.build->library,
                     .signature = problem.signature,
                     .cases = {spec::smallest_case(report.cases.empty() ? problem.cases : report.cases)},
                     .seeds = {report.seeds.front()},
                     .device = context.worker.device};
  std::vector<SanitizerRun> runs;
  for (std::string_view tool : kSanitizerTools) runs.push_back(run_tool(tool, sanitizer, job, context));
  return runs;
}

std::string sanitizer_cause(const std::vector<SanitizerRun>& runs) {
  std::string cause;
  for (const SanitizerRun& r : runs) {
    if (r.status == "clean") continue;
    std::string line = r.status == "failed" ? fmt::format("{}: {}", r.tool, r.detail)
                                            : fmt::format("{}: {} error(s)", r.tool, r.errors);
    if (!r.findings.empty()) {
      const SanitizerFinding& f = r.findings.front();
      line += ": " + f.what;
      if (!f.kernel.empty()) line += " at " + f.kernel;
      if (!f.location.empty()) line += " in " + f.location;
    }
    cause += (cause.empty() ? "" : "; ") + line;
  }
  return cause;
}

json sanitizer_runs_to_json(const std::vector<SanitizerRun>& runs) {
  json out = json::array();
  for (const SanitizerRun& r : runs) {
    json findings = json::array();
    for (const SanitizerFinding& f : r.findings) {
      findings.push_back({{"what", f.what}, {"kernel", f.kernel}, {"location", f.location}, {"thread", f.thread}});
    }
    out.push_back({{"tool", r.tool}, {"case", r.case_name}, {"status", r.status}, {"errors", r.errors},
                   {"findings", findings}, {"detail", r.detail}});
  }
  return out;
}

}  // namespace kopt::verify
