#pragma once
// `kopt check --sanitize`: the check's worker run again under NVIDIA compute-sanitizer, once
// per tool — memcheck (out-of-bounds and misaligned accesses, hardware exceptions), racecheck
// (shared-memory hazards), initcheck (reads of uninitialised global memory) — on the spec's
// smallest case with one seed: the tools slow a kernel down by orders of magnitude, and a
// fault of indexing shows on a small case as on a large one. What the tools report are
// findings in check.json's `sanitizers`; any finding fails the check (docs/check.md).

#include <string>
#include <utility>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "kopt/spec/problem_spec.hpp"

namespace kopt::verify {

struct CheckContext;
struct CheckReport;

// One report of a tool: "Invalid __global__ read of size 4 bytes", where, by whom.
struct SanitizerFinding {
  std::string what;      // the report's first line
  std::string kernel;    // "vector_add_oob(const float *, const float *, float *, int)+0x70", when given
  std::string location;  // "kernel.cu:14", when the kernel has line information
  std::string thread;    // "(255,0,0) in block (3,0,0)", when given
};

// compute-sanitizer's text (every line prefixed "========= "): its findings, and the count
// its ERROR SUMMARY line gives; `summary` false when the text has none (the tool did not run
// to its end).
struct SanitizerText {
  std::vector<SanitizerFinding> findings;
  int errors = 0;
  bool summary = false;
};
SanitizerText parse_sanitizer_output(std::string_view text);

// A run's status from the tool's text and whether the worker under it finished its job: a
// summary of no errors is "clean" only when the check it watched ran to its result, for a
// kernel that exits early under the tool (having seen it) also leaves a clean summary.
// `unfinished`: why the worker did not finish ("" when it did).
std::pair<std::string, std::string> sanitizer_status(const SanitizerText& text, std::string_view tool,
                                                      std::string_view unfinished);

struct SanitizerRun {
  std::string tool;        // memcheck | racecheck | initcheck
  std::string case_name;
  std::string status;      // clean | findings | failed (the tool did not finish: `detail` says why)
  int errors = 0;
  std::vector<SanitizerFinding> findings;
  std::string detail;
};

inline constexpr std::string_view kSanitizerTools[] = {"memcheck", "racecheck", "initcheck"};

// Runs each tool on `report`'s build; the sanitizer is found as kopt finds CUDA tools
// ($KOPT_COMPUTE_SANITIZER, PATH, the toolkit): without it, an environment Error (exit 3).
std::vector<SanitizerRun> run_sanitizers(const spec::Problem& problem, const CheckReport& report, CheckContext& context);

// One line per run with findings ("memcheck: 2 errors: Invalid __global__ read ... at
// vector_add_oob+0x70 in kernel.cu:14"); empty when every run is clean.
std::string sanitizer_cause(const std::vector<SanitizerRun>& runs);

nlohmann::json sanitizer_runs_to_json(const std::vector<SanitizerRun>& runs);

}  // namespace kopt::verify
