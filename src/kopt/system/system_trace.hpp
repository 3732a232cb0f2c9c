#pragma once
// System-level evidence (`kopt evidence FILE`): what a whole workload did on the GPU and the
// host, read from an Nsight Systems SQLite export or a PyTorch-profiler Chrome trace, and
// reduced to where its time went — kernels, copies, the GPU's idle gaps between them, the
// host's time in the CUDA API — and which kernels are worth handing to the loop, by their
// share of the GPU's kernel time (docs/evidence.md).

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace kopt::system {

enum class ActivityKind { kernel, copy, host_api };

struct Activity {
  ActivityKind kind = ActivityKind::kernel;
  std::string name;          // the kernel, the copy's direction (HtoD, DtoH, DtoD, memset, ...), the API call
  double start_s = 0, end_s = 0;
  std::int64_t bytes = 0;    // copies, where the trace says
};

struct SystemTrace {
  std::string format;        // nsys_sqlite | torch_trace
  std::vector<Activity> activities;
};

// Nsight Systems' SQLite export (nsys export --type sqlite): CUPTI_ACTIVITY_KIND_KERNEL (names
// through StringIds), CUPTI_ACTIVITY_KIND_MEMCPY and _MEMSET, CUPTI_ACTIVITY_KIND_RUNTIME.
// input_error naming the file when it is not a database or has no kernel table.
SystemTrace read_nsys_sqlite(const std::filesystem::path& file);

// A PyTorch-profiler trace (export_chrome_trace): the "X" events of traceEvents whose cat is
// kernel, gpu_memcpy, gpu_memset, cuda_runtime or cuda_driver (ts and dur in µs).
SystemTrace read_torch_trace(const std::filesystem::path& file);

// Either, by the file's content (SQLite's header, else JSON).
SystemTrace read_system_trace(const std::filesystem::path& file);

// The thresholds of data/system_evidence.toml.
struct EvidenceRules {
  double min_kernel_share = 0.05;  // of the GPU's kernel time: below it, not worth a loop
  int max_candidates = 10;
  double gap_share = 0.25;         // of the GPU's span: above it, the workload is gap-bound
  double copy_share = 0.25;
};
EvidenceRules load_evidence_rules();

// kopt.system_evidence/1: time per kind, the gaps, kernels and copies aggregated by name, the
// candidates for the loop and what bounds the workload.
nlohmann::json system_evidence(const SystemTrace& trace, const EvidenceRules& rules);

std::string format_system_evidence(const nlohmann::json& evidence);

}  // namespace kopt::system
