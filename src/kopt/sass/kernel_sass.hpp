#pragma once
// One kernel's machine code: compiled for its target and disassembled. `kopt sass` shows it
// and the loop reads it for method signatures; both call kernel_sass, so they cannot drift.

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "kopt/build/compiler.hpp"
#include "kopt/core/context.hpp"
#include "kopt/run/worker_launcher.hpp"
#include "kopt/sass/sass_parser.hpp"
#include "kopt/sass/sass_profile.hpp"
#include "kopt/spec/problem_spec.hpp"

namespace kopt::sass {

struct KernelSassRequest {
  std::filesystem::path kernel;
  std::vector<std::string> flags;                            // the spec's [build] flags
  std::vector<std::pair<std::string, std::string>> defines;  // -D, as the checks compile it
  std::string arch;                                          // "sm_90a": see target_arch
};

struct KernelSass {
  std::filesystem::path kernel;
  std::string arch;
  build::BuildArtifact build;
  SassDump dump;
  SassProfile profile;  // the kernel author's functions only
};

struct KernelSassOutcome {
  std::optional<KernelSass> sass;
  // Why there is no machine code, one line: "does not compile: " and the compiler's first error,
  // or, for a Triton kernel (compiled only when it runs), "failed its check: " and the cause.
  std::string failure;
  bool ok() const { return sass.has_value(); }
};

// The arch to compile for: the spec's [build] arch or the option, else the GPU's own as
// `probe` finds it (called only then; never an assumed sm_90).
std::string target_arch(const std::string& spec_arch, const std::optional<std::string>& option,
                        const std::function<std::string()>& probe);

// The GPU's arch, asked of a worker (the parent never initializes CUDA).
std::string probe_arch(Context& context, const run::WorkerSettings& worker);

// Compiles (through the compile cache) and disassembles with the context's cuobjdump.
KernelSassOutcome kernel_sass(Context& context, const KernelSassRequest& request);

// `kopt sass`'s and the loop's step for a loaded problem: its kernel compiled with the spec's
// flags and `defines` for target_arch (the spec's, else `arch`, else the GPU's through a
// worker), and disassembled. A Triton kernel is compiled by Triton when solve first launches
// it, so it is run instead: a check of the spec's first case with one secret seed (`defines`
// as kernel.py's variables), whose worker's cubins are disassembled the same way; its arch is
// the GPU's (Triton compiles for the device it runs on), the library the check's bridge.
KernelSassOutcome problem_sass(Context& context, const spec::Problem& problem,
                               const std::vector<std::pair<std::string, std::string>>& defines,
                               const std::optional<std::string>& arch, const run::WorkerSettings& worker);

// sass.json's entry for one kernel: its library, nvcc command, resources and functions.
nlohmann::json kernel_sass_json(const std::string& target, const KernelSass& sass);

// The functions of `a` with their counterpart in `b`: with one function on each side they are
// paired whatever their names, else by name (a function without one is left out).
std::vector<std::pair<const SassFunctionProfile*, const SassFunctionProfile*>> paired_functions(
    const SassProfile& a, const SassProfile& b);

}  // namespace kopt::sass
