#include "kopt/profile/profile_job.hpp"

#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

#include <string>

#include "kopt/run/device_buffer.hpp"
#include "kopt/run/kernel_arguments.hpp"
#include "kopt/run/kernel_library.hpp"
#include "kopt/run/problem_codec.hpp"
#include "kopt/run/worker_launcher.hpp"

namespace kopt::profile {
using nlohmann::json;

json profile_job_to_json(const ProfileJob& job) {
  return {{"kind", "profile"},
          {"library", job.library.string()},
          {"signature", run::signature_to_json(job.signature)},
          {"case", run::case_to_json(job.bound_case)},
          {"seed", job.seed},
          {"warmup_calls", job.warmup_calls},
          {"profiled_calls", job.profiled_calls},
          {"device", job.device}};
}

ProfileJob profile_job_from_json(const json& in) {
  return {.library = in.at("library").get<std::string>(),
          .signature = run::signature_from_json(in.at("signature")),
          .bound_case = run::case_from_json(in.at("case")),
          .seed = in.at("seed"),
          .warmup_calls = in.at("warmup_calls"),
          .profiled_calls = in.value("profiled_calls", 1),
          .device = in.at("device")};
}

namespace {

void call_and_wait(const run::KernelLibrary& library, const run::KernelArguments& arguments) {
  library.call(arguments.call());
  run::check_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  if (auto error = library.take_launch_error()) throw run::CudaFailure{"a launch in solve", *error};
}

// Push/pop (not start/end) so that the range belongs to this thread, as --nvtx-include's
// "name/" syntax expects.
class NvtxRange {
 public:
  explicit NvtxRange(std::string_view name) { nvtxRangePushA(std::string(name).c_str()); }
  ~NvtxRange() { nvtxRangePop(); }
  NvtxRange(const NvtxRange&) = delete;
  NvtxRange& operator=(const NvtxRange&) = delete;
};

}  // namespace

json execute_profile_job(const ProfileJob& job) {
  run::check_cuda(cudaSetDevice(job.device), "cudaSetDevice");
  run::KernelLibrary library(job.library, job.signature);
  run::KernelArguments arguments(job.bound_case);
  arguments.generate_inputs(job.seed);
  arguments.prepare_call(0);
  run::report_progress("warming up");
  for (int i = 0; i < job.warmup_calls; ++i) {
    call_and_wait(library, arguments);
    arguments.restore_in_out();
  }
  run::report_progress("profiled call");
  for (int i = 0; i < job.profiled_calls; ++i) {
    if (i > 0) arguments.restore_in_out();
    NvtxRange range(kProfileRange);
    call_and_wait(library, arguments);
  }
  return {{"kind", "profile"}, {"ok", true}};
}

}  // namespace kopt::profile
