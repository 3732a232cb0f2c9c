#pragma once
// The job a worker runs under Nsight Compute: set up one case's inputs exactly as a check
// or a timing run would, warm up, then call `solve` once inside an NVTX push/pop range.
// ncu is told to profile only kernels launched inside that range (`--nvtx-include`), so it
// sees the kernels of that one call — never input generation, the warm-up calls, or the
// kernels of a Python framework.

#include <cstdint>
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "kopt/spec/kernel_signature.hpp"
#include "kopt/spec/problem_spec.hpp"

namespace kopt::profile {

// The NVTX range around the profiled call; `--nvtx-include "kopt_solve/"` selects it.
inline constexpr std::string_view kProfileRange = "kopt_solve";

struct ProfileJob {
  std::filesystem::path library;
  spec::KernelSignature signature;
  spec::BoundCase bound_case;
  std::uint64_t seed = 1;
  int warmup_calls = 2;  // outside the range: module loading and first-touch costs stay out
  // Calls of solve, each in its own range (ncu_witness.hpp times several); each call's kernels
  // follow the previous call's in the report.
  int profiled_calls = 1;
  int device = 0;
};

nlohmann::json profile_job_to_json(const ProfileJob& job);
ProfileJob profile_job_from_json(const nlohmann::json& in);

// Worker side. Returns {"kind":"profile","ok":true}; throws run::CudaFailure when solve
// faults, like the other jobs.
nlohmann::json execute_profile_job(const ProfileJob& job);

}  // namespace kopt::profile
