#pragma once
// Compiles a kernel (.cu) into a shared library with nvcc, through a content-addressed
// cache: the key covers the source, the local headers it includes, the flags, the -D
// overrides, the target and the nvcc version, so an unchanged variant never recompiles.

#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "kopt/build/cutlass_headers.hpp"
#include "kopt/build/ptxas_report.hpp"
#include "kopt/core/context.hpp"
#include "kopt/core/process.hpp"

namespace kopt::build {

struct CompileRequest {
  std::filesystem::path source;
  std::string arch;                                         // "sm_90", "sm_90a", "sm_100a"
  std::vector<std::string> flags;                           // user flags, after kopt's defaults
  // kopt's own flags for its own sources (the peak measurement links cuBLAS): after the
  // user's, and exempt from the check that keeps user flags from choosing programs or files.
  std::vector<std::string> kopt_flags;
  std::vector<std::pair<std::string, std::string>> defines; // -DNAME=VALUE overrides
};

// A compiled library ready to load.
struct BuildArtifact {
  std::filesystem::path library;   // lib.so inside the cache entry
  std::string key;                 // the cache key (hex)
  std::string command;             // the nvcc command, pasteable
  PtxasReport resources;
  bool cache_hit = false;
  double compile_seconds = 0;      // of the original compile
};

// The kernel did not compile: a failure of the kernel, not of kopt.
struct BuildFailure {
  std::string command;
  std::string log;                 // nvcc's output
  std::string first_error;         // the first line that says "error"
};

struct BuildOutcome {
  std::optional<BuildArtifact> artifact;
  std::optional<BuildFailure> failure;
  bool ok() const { return artifact.has_value(); }
};

// nvcc flags that select code for `arch` ("sm_90" → -gencode=arch=compute_90,code=sm_90).
// Throws input_error for a malformed arch.
std::vector<std::string> arch_flags(const std::string& arch);

// $KOPT_NVCC, then nvcc on PATH, then $CUDA_HOME/bin and /usr/local/cuda/bin. Throws an
// environment error (exit 3) saying how to fix it when there is none.
std::filesystem::path find_nvcc();

// Forgets the nvcc versions this process has asked, as a new kopt process would: for tests of
// the cache folder's record of them.
void forget_remembered_nvcc_versions();

class Compiler {
 public:
  // `cutlass`: where a kernel including CUTLASS finds it; none: $CUTLASS_PATH, then python3's
  // nvidia-cutlass package (system_cutlass_search).
  Compiler(ProcessRunner& runner, std::filesystem::path nvcc, std::filesystem::path cache_dir,
           std::optional<CutlassSearch> cutlass = std::nullopt);
  // The context's runner, nvcc and cache folder: how commands and the loop make one.
  explicit Compiler(Context& context);

  BuildOutcome compile(const CompileRequest& request);
  // "release 13.0, V13.0.88 / cuda_13.0.r13.0/compiler.36424714_0", asked once per nvcc
  // binary: remembered by the process and in the cache folder's toolchain/.
  const std::string& nvcc_version();
  std::string cache_key(const CompileRequest& request);

 private:
  std::filesystem::path shim_object(const std::string& arch);
  // `request` with -I flags for CUTLASS among kopt's flags when its kernel includes CUTLASS
  // and its own flags do not reach it.
  CompileRequest with_cutlass_headers(const CompileRequest& request);

  ProcessRunner& runner_;
  std::filesystem::path nvcc_;
  std::filesystem::path cache_dir_;
  std::string nvcc_version_;
  CutlassSearch cutlass_search_;
  std::optional<std::vector<std::string>> cutlass_flags_;  // searched once per compiler
};

// The local headers `source` includes with #include "..." (recursively, resolved against
// the including file's folder and the -I folders in `flags`), sorted. CUTLASS's own folders
// are not walked: its version.h stands for them in the cache key.
std::vector<std::filesystem::path> local_includes(const std::filesystem::path& source,
                                                  const std::vector<std::string>& flags);

}  // namespace kopt::build
