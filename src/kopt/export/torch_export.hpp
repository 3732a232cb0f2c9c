#pragma once
// kopt export --torch: a kernel (or a run's champion) as a Python package that registers a
// PyTorch custom op, kopt::<name> (docs/export.md). The package holds the library kopt
// compiled and checked (through build::Compiler, its shim included) or a Triton kernel.py,
// manifest.json (torch_manifest.hpp), and kopt's fixed runtime module as its __init__.py.

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "kopt/core/context.hpp"
#include "kopt/export/export_target.hpp"

namespace kopt::exporting {

struct TorchExportRequest {
  std::filesystem::path target;                              // KERNEL or RUN
  std::optional<std::filesystem::path> spec;                 // --spec (not with a run)
  std::filesystem::path out_dir;                             // --torch DIR: the package is DIR/<name>
  std::string name;                                          // --name; empty: the spec's name made an identifier
  std::optional<std::string> arch;                           // --arch
  std::vector<std::pair<std::string, std::string>> defines;  // -D, laid over a champion's
};

struct TorchExport {
  std::filesystem::path package;  // DIR/<name>
  std::string name;
  std::string arch;               // empty for a Triton kernel
  nlohmann::json manifest;
};

// The arch to build for: --arch, else the run's env.json, else the spec's [build] arch, else
// the GPU's (`probe`, asked only then); a failed probe says to name one with --arch.
std::string export_arch(const std::optional<std::string>& option, const ExportTarget& target,
                        const std::string& spec_arch, const std::function<std::string()>& probe);

// Loads the problem, compiles (a .cu) or takes kernel.py as it is (Triton compiles where it
// runs), and publishes DIR/<name> in one rename, replacing an earlier export there but nothing
// else: a folder that is not one is refused. A kernel that does not compile is
// Error(kernel_failed) with the compiler's first error; bad input is input_error.
TorchExport export_torch(Context& context, const TorchExportRequest& request, const std::function<std::string()>& probe);

// The package's files in the order they are written: name → content (manifest.json last).
// Separate from export_torch so that the layout is tested without a compiler.
std::vector<std::pair<std::string, std::string>> package_files(const nlohmann::json& manifest,
                                                               const std::string& payload_name,
                                                               const std::string& payload);

}  // namespace kopt::exporting
