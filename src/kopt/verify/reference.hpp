#pragma once
// Reference outputs for every (case, seed): from a .cu reference with the kernel's own
// signature (run in a worker like any kernel) or from a Python reference (run by the
// bundled runner). Cached per (reference, case, seed, input generator version): a
// reference runs once, however many variants are checked against it.

#include <cstdint>
#include <chrono>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kopt/build/compiler.hpp"
#include "kopt/core/process.hpp"
#include "kopt/run/worker_launcher.hpp"
#include "kopt/spec/problem_spec.hpp"
#include "kopt/verify/reference_server.hpp"

namespace kopt::verify {

struct ReferenceContext {
  ProcessRunner& runner;
  std::filesystem::path cache_dir;
  run::WorkerSettings worker;
  // The cache is this command's own (secret seeds, unconfined workers): its outputs need not
  // survive a crash of the machine (core/files.hpp, Durability).
  bool private_cache = false;
  // [case][seed] → each output's digest in the kernel's run (argument order). A .cu reference
  // computed into a private cache does not dump an output with the same digest: no one reads
  // it (check.cpp passes equal digests unread). Empty: every output is dumped.
  std::vector<std::vector<std::vector<std::uint64_t>>> kernel_digests;
  // A worker already started for a .cu reference (run::PrestartedWorker: its CUDA set-up
  // overlapped the kernel's check); none: a fresh one is started when needed.
  run::PrestartedWorker* prestarted = nullptr;
  // The command's one Python runner (reference_server.hpp); none: each run starts its own.
  PythonReferenceServer* python_server = nullptr;
};

struct ReferenceOutputs {
  std::vector<std::vector<std::filesystem::path>> dirs;  // [case][seed] → folder of <output>.npy
  std::string kind;                                      // "cuda" or "python"
  std::string backend;                                   // python: "torch on cuda", "numpy on cpu"
  int computed = 0;                                      // (case, seed) pairs computed now
  int cached = 0;                                        // ... and found in the cache
  // [case][seed] → each output's digest (run::output_digest), in argument order: a .cu
  // reference's worker takes them; empty where unknown (a .py reference, an older cache entry).
  std::vector<std::vector<std::vector<std::uint64_t>>> digests;
  std::optional<PythonReferenceSeconds> python_seconds;  // a .py reference that computed any
};

bool is_python_reference(const std::filesystem::path& reference);

// How long one run of a .py reference's runner may take: four of the worker's limits (the
// reference may be slower than the kernels it judges).
std::chrono::duration<double> python_reference_time_limit(const run::WorkerSettings& worker);

// A runner that serves every run of `problem`'s .py reference for the rest of a command
// (reference_server.hpp), each within `time_limit`; nullptr when its reference is no .py.
// `warm_cuda_device`: torch's CUDA is set up ahead on that GPU (the command's), for a command
// that times nothing before its first request (kopt check): the set-up makes a context and
// launches a kernel, which must never happen beside timed calls.
std::unique_ptr<PythonReferenceServer> serve_python_reference(const spec::Problem& problem, ProcessRunner& runner,
                                                              const std::filesystem::path& cache_dir,
                                                              std::chrono::duration<double> time_limit,
                                                              std::optional<int> warm_cuda_device,
                                                              PythonReferenceServer::RequestObserver observer = {});

// Whether every (case, seed) output of the .py reference is in context.cache_dir already, so
// that no Python need start for them.
bool python_references_cached(const spec::Problem& problem, const std::vector<std::uint64_t>& seeds,
                              const std::filesystem::path& cache_dir);

// Python references need no GPU. Throws input_error (exit 2) when the reference raises,
// leaves an output unwritten or writes the wrong shape, naming the reference and the cause.
ReferenceOutputs python_reference_outputs(const spec::Problem& problem, const std::vector<std::uint64_t>& seeds,
                                          ReferenceContext& context);

// Times the Python reference on every case (the inputs of `seed`) in one runner process,
// within context.worker.time_limit; `time` is the runner manifest's "time" object (mode,
// stopping settings, l2_bytes). Returns the runner's "timing" object per case, in case order:
// the samples, or "timed": false with the reason (the numpy backend is not timed).
std::vector<nlohmann::json> python_reference_timings(const spec::Problem& problem, std::uint64_t seed,
                                                     const nlohmann::json& time, ReferenceContext& context);

// Compiles the .cu reference for `arch` and runs it in a worker. A reference that fails to
// compile, faults or leaves outputs unwritten is bad input (exit 2).
ReferenceOutputs cuda_reference_outputs(const spec::Problem& problem, const std::vector<std::uint64_t>& seeds,
                                        ReferenceContext& context, build::Compiler& compiler, const std::string& arch);

// Either of the above, by the reference's file type (`compiler` may be null for .py).
ReferenceOutputs reference_outputs(const spec::Problem& problem, const std::vector<std::uint64_t>& seeds,
                                   ReferenceContext& context, build::Compiler* compiler, const std::string& arch);

using kopt::find_python;  // core/process.hpp

}  // namespace kopt::verify
