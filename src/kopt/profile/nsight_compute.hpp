#pragma once
// Running Nsight Compute: finding `ncu`, the command line that profiles one worker job, and
// the export of a report's raw page. ncu's failures are translated into one line that says
// what to do — above all the missing permission to read GPU performance counters, which is
// the usual reason profiling fails on a shared machine.

#include <filesystem>
#include <string>
#include <vector>

#include "kopt/core/process.hpp"

namespace kopt::profile {

// $KOPT_NCU, else `ncu` on PATH or in the CUDA toolkit; throws an environment Error.
std::filesystem::path find_ncu();

// "2025.3.1" from `ncu --version` ("Version 2025.3.1.0 (build ...)"); throws an environment
// Error when ncu does not run.
std::string ncu_version(ProcessRunner& runner, const std::filesystem::path& ncu);

struct NcuSettings {
  std::string section_set = "full";      // --set; empty: only `metrics`
  std::string clock_control = "none";    // --clock-control: none (the clocks a normal run sees) | base
  std::string cache_control = "all";     // --cache-control: all (flush before each pass, as cold timing) | none
  bool import_source = true;             // --import-source: the CUDA source in the report
  std::vector<std::string> metrics;      // --metrics, in addition to the set; empty: none
};

// The words to put before `kopt worker JOB RESULT` so that ncu profiles exactly the
// kernels launched inside the job's NVTX range and writes `report` (.ncu-rep).
std::vector<std::string> ncu_command_prefix(const std::filesystem::path& ncu, const NcuSettings& settings,
                                            const std::filesystem::path& report);

// `ncu --import REPORT --csv --page raw --print-units base`: the wide table with its units
// row that parse_ncu_raw_csv reads. Throws an environment Error naming the command.
std::string export_raw_csv(ProcessRunner& runner, const std::filesystem::path& ncu,
                           const std::filesystem::path& report);

// When ncu's own output says why it could not profile, one line that says so and how to
// fix it; empty when it names no known cause.
std::string ncu_failure_cause(const std::string& ncu_output);

}  // namespace kopt::profile
