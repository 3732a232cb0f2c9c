#pragma once
// manifest.json of a PyTorch export (kopt.torch_export/1, schemas/torch_export.schema.json):
// everything the fixed runtime module (python/kopt_torch_export.py) needs to check a call and
// make it: each parameter's role, dtype and shape expression, the dims and where each comes
// from, the library or kernel.py, and what was built (defines, flags, arch, digests).

#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "kopt/spec/problem_spec.hpp"

namespace kopt::exporting {

inline constexpr std::string_view kTorchManifestSchema = "kopt.torch_export/1";

// What was built and from what: the manifest's provenance.
struct ExportedBuild {
  std::string kind;                                          // "cuda" or "triton"
  std::string file;                                          // the package's library, or its kernel.py
  std::string arch;                                          // empty for Triton (compiled where it runs)
  std::string nvcc_version;                                  // empty for Triton
  std::string nvcc_command;                                  // empty for Triton
  std::vector<std::string> flags;                            // the spec's and the run's
  std::vector<std::pair<std::string, std::string>> defines;  // -D as compiled (kernel.py's variables)
  std::string source_digest;                                 // content_hash of the kernel's source
  std::optional<std::filesystem::path> run;                  // the run folder exported from
  std::string variant;                                       // its champion's label
};

// "input" (const pointer), "output" (written, its start undefined or zero: see zero_init),
// "in-out" (written, its [buffers] init gives its start: the caller's values), "scalar".
std::string parameter_role(const spec::KernelParam& param, const spec::ProblemSpec& spec);

// The buffer's shape expressions as binding reads them: [buffers.X] shape, else the lone
// integer scalar. input_error where kopt would size it by a rule a caller cannot follow (a
// seed task's product of the two largest dims).
std::vector<std::string> shape_expressions(const spec::KernelParam& param, const spec::Problem& problem);

// Each dim a shape or a scalar parameter reads: its type, whether solve takes it, where its
// value comes from (an axis of an input that is the bare dim, else a keyword), and the value
// it is fixed at when solve does not take it (the kernel was built for that one).
nlohmann::json manifest_dims(const spec::Problem& problem);

// The whole manifest.json for op `name` (kopt::<name>).
nlohmann::json torch_manifest(const spec::Problem& problem, const std::string& name, const ExportedBuild& build);

// `name` as an op and package name: a Python identifier, or input_error naming it.
void check_op_name(const std::string& name);
// The spec's name made one: [^A-Za-z0-9_] become "_", and a leading digit gets "op_" before it.
std::string op_name_of(const std::string& spec_name);

}  // namespace kopt::exporting
