#pragma once
// A verification job, run inside a worker process: for each case and seed, fresh inputs,
// poisoned outputs, guarded buffers, two calls of solve, and every check docs/design.md §4
// names. The same job, run on a reference library, produces the reference outputs.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kopt/run/kernel_arguments.hpp"
#include "kopt/run/kernel_library.hpp"
#include "kopt/spec/kernel_signature.hpp"
#include "kopt/spec/problem_spec.hpp"
#include "kopt/verify/output_comparison.hpp"

namespace kopt::verify {

// What can be wrong with a kernel, most fundamental first: a run reports its first
// finding as the cause.
enum class FindingKind {
  out_of_memory,
  fault,
  launch_error,
  unwritten_output,
  input_modified,
  out_of_bounds_write,
  race,
  mismatch,
  ignores_inputs,  // within tolerance, but the same whatever the inputs (input_dependence.hpp)
};

std::string_view finding_kind_name(FindingKind kind);  // "unwritten_output"

struct Finding {
  FindingKind kind;
  std::string buffer;   // the buffer concerned, when there is one
  std::string message;  // one line
};

struct RunRecord {
  std::string case_name;
  int case_index = 0;
  std::uint64_t seed = 0;
  std::vector<Finding> findings;
  std::vector<OutputError> outputs;   // against the reference; empty without one
  bool bitwise_reproducible = true;
  std::vector<std::string> notes;
  double solve_wall_seconds = 0;      // host wall time of the first call, synchronize included
  // The digest of the first call's outputs (combine_output_digests over each output's
  // run::output_digest, in argument order): what a timed call on the same seed must match.
  std::uint64_t output_digest = 0;
  // Each output's digest (run::output_digest), in argument order; empty when not taken. Equal
  // digests of the kernel's and the reference's output mean equal bytes: the comparison in
  // kopt's process then needs neither file (check.cpp).
  std::vector<std::uint64_t> output_digests;

  bool passed() const { return findings.empty(); }
};

// Where a check worker's wall time went, in seconds, summed over cases and seeds (check.json
// "worker_phase_seconds"; docs/measurement.md, "What a check costs").
struct CheckWorkerPhases {
  double setup = 0;     // the device, the kernel library, each case's buffers
  double generate = 0;  // inputs made (on the GPU, or on the host and uploaded) and outputs poisoned
  double calls = 0;     // the calls of solve, each waited for
  double checks = 0;    // digests, guards, and inputs and reruns compared
  double transfer = 0;  // outputs downloaded for the comparison with the reference
  double dumps = 0;     // outputs written as .npy
};

struct CheckJob {
  const std::vector<std::uint64_t>& seeds_of_case(std::size_t c) const {
    return seeds_per_case.empty() ? seeds : seeds_per_case.at(c);
  }

  std::filesystem::path library;
  spec::KernelSignature signature;
  std::vector<spec::BoundCase> cases;
  std::vector<std::uint64_t> seeds;
  // When set, case c runs on seeds_per_case[c] instead of `seeds` (the audit of timed calls).
  std::vector<std::vector<std::uint64_t>> seeds_per_case;
  // reference_dirs[case][seed] holds <output>.npy; empty: no reference.
  std::vector<std::vector<std::filesystem::path>> reference_dirs;
  // When set, the first run's outputs are written to dump_dirs[case][seed]/<output>.npy:
  // the job is then producing reference outputs.
  std::vector<std::vector<std::filesystem::path>> dump_dirs;
  // Dumps that only this command reads (the kernel's outputs for the comparison in kopt's
  // process) are not waited for on the disk; cached reference outputs are.
  bool scratch_dumps = false;
  // Per [case][seed], each output's digest (argument order) that the kernel's worker recorded:
  // an output of this job with the same digest holds the same bytes and is not dumped. For a
  // reference computed into a private cache, whose files only this check reads (check.cpp
  // compares outputs with equal digests without them). Empty: every output is dumped.
  std::vector<std::vector<std::vector<std::uint64_t>>> dump_unless_digests;
  // The audit of timed calls: one call per seed, made as the timing loop makes it (inputs
  // generated on the GPU, outputs poisoned, their digest taken on the GPU), with nothing but
  // the guards and the digest looked at. The worker cannot see this flag (the job file is gone
  // before the kernel's library loads), and every call of such a job is made the same way, so
  // the kernel cannot tell which of them replay timed calls and which the check's
  // (docs/integrity.md).
  bool single_calls = false;
  int device = 0;
};

struct CheckJobResult {
  nlohmann::json device;              // DeviceInfo
  std::vector<RunRecord> runs;
  std::optional<Finding> fatal;       // a fault or OOM that ended the job early
  CheckWorkerPhases phases;
};

nlohmann::json check_worker_phases_to_json(const CheckWorkerPhases& phases);
CheckWorkerPhases check_worker_phases_from_json(const nlohmann::json& in);

nlohmann::json check_job_to_json(const CheckJob& job);
CheckJob check_job_from_json(const nlohmann::json& in);
nlohmann::json check_result_to_json(const CheckJobResult& result);
CheckJobResult check_result_from_json(const nlohmann::json& in);
nlohmann::json run_record_to_json(const RunRecord& run);
RunRecord run_record_from_json(const nlohmann::json& in);

// Orders a run's findings most fundamental first (a fault before a wrong value), so that
// findings[0] is the cause.
void order_findings(RunRecord& run);

// Compares one run's outputs (indexed like the case's arguments) with the reference's .npy
// files in `reference_dir`, adding a mismatch finding per output outside its tolerance.
void compare_with_reference(const spec::BoundCase& bound_case, const std::vector<std::vector<std::byte>>& outputs,
                            const std::filesystem::path& reference_dir, RunRecord& run);
// The same, on outputs a worker dumped into `kernel_dir` (kopt's own process compares, where
// the kernel's code cannot reach: docs/integrity.md). An output whose digest in `run` equals
// the reference's (`reference_digests`, each output's in argument order; empty when unknown)
// has the reference's bytes: its error is zero and neither file is read.
void compare_dumped_outputs(const spec::BoundCase& bound_case, const std::filesystem::path& kernel_dir,
                            const std::filesystem::path& reference_dir,
                            const std::vector<std::uint64_t>& reference_digests, RunRecord& run);
// Whether output number `output` (counting outputs only) of `run` has the digest the
// reference's has; false when either is unknown.
bool same_bytes_as_reference(const RunRecord& run, const std::vector<std::uint64_t>& reference_digests,
                             std::size_t output);

// One digest of a call's outputs from each output's digest, in argument order; the timing
// worker's device digest and the check's host digest of the same bytes agree.
std::uint64_t combine_output_digests(const std::vector<std::uint64_t>& per_output);

// Worker side. Throws an environment Error when there is no usable GPU.
CheckJobResult execute_check_job(const CheckJob& job);

// Worker side: one call on fresh inputs for `seed`, verified against the reference outputs
// in `reference_dir` (guards and outputs). Timing uses it to re-check a kernel after its
// timing loop: a kernel that caches results across calls fails here. Whether solve writes its
// inputs is the check's question, asked on every seed before timing; not asking it again
// here spares each bench a download of every input.
RunRecord verify_single_call(const run::KernelLibrary& library, run::KernelArguments& arguments, std::uint64_t seed,
                             const std::filesystem::path& reference_dir);

}  // namespace kopt::verify
