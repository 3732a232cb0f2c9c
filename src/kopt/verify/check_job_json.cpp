// check_job.hpp's JSON: the job kopt hands a check worker, the records it sends back.
#include "kopt/verify/check_job.hpp"

#include "kopt/core/error.hpp"
#include "kopt/run/problem_codec.hpp"

namespace kopt::verify {
namespace fs = std::filesystem;
using nlohmann::json;

json check_worker_phases_to_json(const CheckWorkerPhases& phases) {
  return {{"setup", phases.setup},   {"generate", phases.generate}, {"calls", phases.calls},
          {"checks", phases.checks}, {"transfer", phases.transfer}, {"dumps", phases.dumps}};
}

CheckWorkerPhases check_worker_phases_from_json(const json& in) {
  return {.setup = in.value("setup", 0.0),
          .generate = in.value("generate", 0.0),
          .calls = in.value("calls", 0.0),
          .checks = in.value("checks", 0.0),
          .transfer = in.value("transfer", 0.0),
          .dumps = in.value("dumps", 0.0)};
}

std::string_view finding_kind_name(FindingKind kind) {
  switch (kind) {
    case FindingKind::out_of_memory: return "out_of_memory";
    case FindingKind::fault: return "fault";
    case FindingKind::launch_error: return "launch_error";
    case FindingKind::unwritten_output: return "unwritten_output";
    case FindingKind::input_modified: return "input_modified";
    case FindingKind::out_of_bounds_write: return "out_of_bounds_write";
    case FindingKind::race: return "race";
    case FindingKind::mismatch: return "mismatch";
    case FindingKind::ignores_inputs: return "ignores_inputs";
  }
  return "unknown";
}

namespace {

FindingKind finding_kind_from_name(const std::string& name) {
  for (int k = 0; k <= static_cast<int>(FindingKind::ignores_inputs); ++k) {
    if (finding_kind_name(static_cast<FindingKind>(k)) == name) return static_cast<FindingKind>(k);
  }
  throw input_error("unknown finding kind \"{}\" in a worker result", name);
}

json finding_to_json(const Finding& f) {
  return {{"kind", finding_kind_name(f.kind)}, {"buffer", f.buffer}, {"message", f.message}};
}

Finding finding_from_json(const json& in) {
  return {finding_kind_from_name(in.at("kind")), in.at("buffer"), in.at("message")};
}

json paths_to_json(const std::vector<std::vector<fs::path>>& paths) {
  json out = json::array();
  for (const auto& row : paths) {
    json r = json::array();
    for (const fs::path& p : row) r.push_back(p.string());
    out.push_back(r);
  }
  return out;
}

std::vector<std::vector<fs::path>> paths_from_json(const json& in) {
  std::vector<std::vector<fs::path>> paths;
  for (const json& row : in) {
    std::vector<fs::path> r;
    for (const json& p : row) r.emplace_back(p.get<std::string>());
    paths.push_back(std::move(r));
  }
  return paths;
}

}  // namespace

RunRecord run_record_from_json(const json& in) {
  RunRecord run{.case_name = in.at("case"), .case_index = in.at("case_index"), .seed = in.at("seed")};
  for (const json& f : in.at("findings")) run.findings.push_back(finding_from_json(f));
  run.outputs = in.at("outputs").get<std::vector<OutputError>>();
  run.bitwise_reproducible = in.at("bitwise_reproducible");
  run.notes = in.at("notes").get<std::vector<std::string>>();
  run.solve_wall_seconds = in.at("solve_wall_seconds");
  run.output_digest = in.value("output_digest", std::uint64_t{0});
  run.output_digests = in.value("output_digests", std::vector<std::uint64_t>{});
  return run;
}

json run_record_to_json(const RunRecord& run) {
  json findings = json::array();
  for (const Finding& f : run.findings) findings.push_back(finding_to_json(f));
  return {{"case", run.case_name},
          {"case_index", run.case_index},
          {"seed", run.seed},
          {"passed", run.passed()},
          {"findings", findings},
          {"outputs", run.outputs},
          {"bitwise_reproducible", run.bitwise_reproducible},
          {"notes", run.notes},
          {"solve_wall_seconds", run.solve_wall_seconds},
          {"output_digest", run.output_digest},
          {"output_digests", run.output_digests}};
}

json check_job_to_json(const CheckJob& job) {
  json cases = json::array();
  for (const spec::BoundCase& c : job.cases) cases.push_back(run::case_to_json(c));
  return {{"kind", "check"},
          {"schema_version", 1},
          {"library", job.library.string()},
          {"signature", run::signature_to_json(job.signature)},
          {"cases", cases},
          {"seeds", job.seeds},
          {"seeds_per_case", job.seeds_per_case},
          {"reference_dirs", paths_to_json(job.reference_dirs)},
          {"dump_dirs", paths_to_json(job.dump_dirs)},
          {"scratch_dumps", job.scratch_dumps},
          {"dump_unless_digests", job.dump_unless_digests},
          {"single_calls", job.single_calls},
          {"device", job.device}};
}

CheckJob check_job_from_json(const json& in) {
  CheckJob job;
  job.library = in.at("library").get<std::string>();
  job.signature = run::signature_from_json(in.at("signature"));
  for (const json& c : in.at("cases")) job.cases.push_back(run::case_from_json(c));
  job.seeds = in.at("seeds").get<std::vector<std::uint64_t>>();
  job.seeds_per_case = in.value("seeds_per_case", std::vector<std::vector<std::uint64_t>>{});
  job.reference_dirs = paths_from_json(in.at("reference_dirs"));
  job.dump_dirs = paths_from_json(in.at("dump_dirs"));
  job.scratch_dumps = in.value("scratch_dumps", false);
  job.dump_unless_digests =
      in.value("dump_unless_digests", std::vector<std::vector<std::vector<std::uint64_t>>>{});
  job.single_calls = in.value("single_calls", false);
  job.device = in.at("device");
  return job;
}

json check_result_to_json(const CheckJobResult& result) {
  json runs = json::array();
  for (const RunRecord& run : result.runs) runs.push_back(run_record_to_json(run));
  return {{"kind", "check"},
          {"device", result.device},
          {"runs", runs},
          {"fatal", result.fatal ? finding_to_json(*result.fatal) : json(nullptr)},
          {"phase_seconds", check_worker_phases_to_json(result.phases)}};
}

CheckJobResult check_result_from_json(const json& in) {
  CheckJobResult result;
  result.device = in.at("device");
  for (const json& run : in.at("runs")) result.runs.push_back(run_record_from_json(run));
  if (!in.at("fatal").is_null()) result.fatal = finding_from_json(in.at("fatal"));
  result.phases = check_worker_phases_from_json(in.value("phase_seconds", json::object()));
  return result;
}

}  // namespace kopt::verify
