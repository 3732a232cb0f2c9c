#pragma once
// `kopt check`: prove a kernel correct on every case and seed, before anything is timed.

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "kopt/build/compiler.hpp"
#include "kopt/core/process.hpp"
#include "kopt/run/worker_launcher.hpp"
#include "kopt/verify/reference_server.hpp"
#include "kopt/spec/problem_spec.hpp"
#include "kopt/spec/source_audit.hpp"
#include "kopt/verify/check_job.hpp"
#include "kopt/verify/sanitizer.hpp"

namespace kopt::verify {

struct CheckOptions {
  int seed_count = 3;
  std::uint64_t first_seed = 0;  // 0: secret random seeds (docs/integrity.md); else seeds from here up
  std::optional<std::string> arch;                               // overrides [build] arch
  std::vector<std::pair<std::string, std::string>> defines;      // -D overrides (variants, ablation)
  bool strict = false;  // a source-audit finding fails the check (docs/integrity.md)
  bool sanitize = false;  // also run compute-sanitizer's tools on the smallest case (sanitizer.hpp)
  // A Triton kernel's check moves the cubins Triton compiled in its worker here (kopt sass of a
  // .py kernel reads them; run::keep_triton_cubins); empty: they go with the worker's folder.
  std::filesystem::path triton_cubins_out;
};

struct CheckContext {
  ProcessRunner& runner;
  std::filesystem::path cache_dir;
  run::WorkerSettings worker;
  // A Python runner serving the whole command (bench: the checks, the audit and the timing of a
  // .py reference); none: each reference run starts Python anew.
  PythonReferenceServer* python_server = nullptr;
  // Called when a check's kernel worker has exited, before the reference's outputs are made:
  // a bench starts its audit's workers then (measure::AuditWorkers). None: nothing is called.
  std::function<void()> after_kernel_worker;
};

// A failure of the kernel as a whole, rather than of one run: it did not compile, it hung,
// its worker crashed, or it faulted.
struct KernelFailure {
  std::string kind;     // "compile_error", "timeout", "crash", "fault", "out_of_memory"
  std::string message;  // one line
  std::string detail;   // compiler output or the worker's last stderr lines
};

// Where a check's wall time went in kopt's own process, in seconds (check.json
// "phase_seconds"; docs/measurement.md, "What a check costs").
struct CheckPhaseSeconds {
  double probe = 0;          // the device probe's worker
  double compile = 0;        // the kernel's build (a cache hit costs a hash)
  double kernel_worker = 0;  // the worker that runs the kernel on every case and seed
  double reference = 0;      // the reference's outputs: its build and worker, or the cache
  double comparison = 0;     // the kernel's outputs against the reference's, here
  double total = 0;
};

struct CheckReport {
  std::filesystem::path kernel;
  std::string problem_name;
  std::string entry;
  std::vector<std::string> guesses;
  nlohmann::json device;                       // DeviceInfo
  std::string arch;
  std::string nvcc_version;
  std::optional<build::BuildArtifact> build;
  std::string reference;                       // "ref.cu (cuda, compiled for sm_90)", "none"
  std::vector<std::uint64_t> seeds;
  std::vector<spec::BoundCase> cases;
  std::vector<RunRecord> runs;
  std::optional<KernelFailure> failure;
  bool from_cache = false;                     // an identical passing check was reused
  std::vector<spec::SourceFinding> source_findings;  // the source audit, before compiling
  bool strict = false;                         // ... and whether a finding fails the check
  // How the kernel's worker was confined ("landlock ABI 7: writes only beneath 2 folders"),
  // or why it was not; unconfined, no cache a kernel could have written is reused.
  std::string sandbox;
  bool writes_confined = false;
  CheckPhaseSeconds phase_seconds;
  CheckWorkerPhases worker_phases;             // inside the kernel's worker
  std::optional<PythonReferenceSeconds> reference_seconds;  // a .py reference's phase, split
  std::optional<std::vector<SanitizerRun>> sanitizers;  // with --sanitize: each tool's findings
  std::vector<std::filesystem::path> triton_cubins;  // where options.triton_cubins_out kept them
  // What the check passed but cannot vouch for: a tolerance that accepts a constant output
  // (input_dependence.hpp). Printed as WARN lines; no effect on passed().
  std::vector<std::string> warnings;

  bool passed() const;
  // One line naming the cause of failure, with case and seed; empty when passed.
  std::string cause() const;
};

// Throws Error for bad input (exit 2) and a missing environment (exit 3); a kernel that is
// wrong, crashes or hangs is a report that did not pass (exit 1).
// Why a check's runs are not exactly one per case and seed it asked for (its worker makes one
// per pair, or stops with a fatal finding); "" when they are. A result that covers less is no
// pass of what it covers.
std::string coverage_gap(const CheckReport& report);

CheckReport run_check(const spec::Problem& problem, const CheckOptions& options, CheckContext& context);

// ": CAUSE" when a dead worker's last line of stderr is "kopt: CAUSE" (a Triton kernel's host
// refusing, in one line, what it cannot run: docs/triton.md), else "": the cause belongs in the
// failure's message, not only in its detail. Asked only of a Triton kernel's worker: a .cu
// kernel's stderr is the kernel's own, and kopt's message is not its to write.
std::string host_refusal_of(const std::string& stderr_tail);

// What a check compiles for `arch`: the kernel (a Triton kernel's bridge), the spec's flags and
// the options' defines. A check another part of kopt stands on must be of this library
// (profile/passed_check.hpp).
build::CompileRequest kernel_compile_request(const spec::Problem& problem, const CheckOptions& options,
                                             const std::filesystem::path& cache_dir, const std::string& arch);

// The arch to build for: the spec's [build] arch, the option, or the device's own.
std::string resolve_arch(const std::string& spec_arch, const std::optional<std::string>& option,
                         const std::string& device_arch);

nlohmann::json check_report_to_json(const CheckReport& report);

}  // namespace kopt::verify
