#pragma once
// The resource report ptxas prints under `nvcc -Xptxas -v`: per entry function its
// registers, barriers, shared memory, stack frame and spills. Kept with every build because
// spills and register pressure explain many a slow variant before any profiler runs.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace kopt::build {

struct FunctionResources {
  std::string name;                    // as ptxas names it (mangled unless extern "C")
  std::string arch;                    // "sm_90"
  int registers = 0;
  int barriers = 0;
  std::int64_t shared_bytes = 0;       // static shared memory ("smem")
  std::int64_t constant_bytes = 0;     // cmem[0], the kernel's parameter bank
  std::int64_t stack_frame_bytes = 0;
  std::int64_t spill_store_bytes = 0;
  std::int64_t spill_load_bytes = 0;
};

struct PtxasReport {
  std::vector<FunctionResources> functions;  // entry functions, in report order
  std::vector<std::string> unparsed_lines;   // "ptxas info" lines not understood (never guessed)

  bool has_spills() const;
};

// Parses nvcc's stderr; lines that are not ptxas output (warnings, host compiler) are skipped.
PtxasReport parse_ptxas_report(std::string_view nvcc_stderr);

void to_json(nlohmann::json& out, const FunctionResources& resources);
void from_json(const nlohmann::json& in, FunctionResources& resources);
void to_json(nlohmann::json& out, const PtxasReport& report);
void from_json(const nlohmann::json& in, PtxasReport& report);

}  // namespace kopt::build
