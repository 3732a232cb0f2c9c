#include "kopt/export/torch_export.hpp"

#include <cmath>

#include "kopt/build/compiler.hpp"
#include "kopt/core/embedded_files.hpp"
#include "kopt/core/error.hpp"
#include "kopt/core/file_queries.hpp"
#include "kopt/core/files.hpp"
#include "kopt/core/hash.hpp"
#include "kopt/export/torch_manifest.hpp"
#include "kopt/spec/python_kernel.hpp"

namespace kopt::exporting {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// A library with CUTLASS in it runs to tens of MiB; kMaxInputBytes is for inputs a user writes.
constexpr std::uintmax_t kMaxLibraryBytes = std::uintmax_t{2} << 30;

// The run's --dim NAME=VALUE as init checked them: a whole number is an integer ("1e9" too).
spec::Dims run_dims(const std::vector<std::string>& texts) {
  spec::Dims dims;
  for (const std::string& text : texts) {
    const auto eq = text.find('=');
    if (eq == std::string::npos) throw input_error("state.json dims: \"{}\" is not NAME=VALUE", text);
    spec::Number value = spec::Expression::parse(text.substr(eq + 1)).evaluate({});
    if (const double* real = std::get_if<double>(&value); real != nullptr && *real == std::floor(*real) &&
                                                           std::fabs(*real) <= 9007199254740992.0) {
      value = static_cast<std::int64_t>(*real);
    }
    dims[text.substr(0, eq)] = value;
  }
  return dims;
}

// Only an earlier export is replaced: a folder of anything else at DIR/<name> is the user's.
void check_replaceable(const fs::path& package) {
  if (!path_exists(package)) return;
  const fs::path manifest = package / "manifest.json";
  bool ours = false;
  if (is_folder(package) && is_file(manifest)) {
    const json document = json::parse(read_file(manifest), nullptr, false);
    ours = document.is_object() && document.value("schema", "") == kTorchManifestSchema;
  }
  if (!ours) {
    throw input_error("{} exists and is not a kopt export (no manifest.json of {}): choose another --torch folder or "
                      "--name", package.string(), kTorchManifestSchema);
  }
}

// Written in a folder beside the package, then renamed over it: an interrupted export leaves
// the earlier one (or none), never half of one.
void publish(const fs::path& package, const std::vector<std::pair<std::string, std::string>>& files) {
  create_folders(package.parent_path());
  TempDir stage(".kopt-export", package.parent_path());
  for (const auto& [name, content] : files) write_file_atomic(stage.path() / "package" / name, content);
  if (path_exists(package)) move_path(package, stage.path() / "replaced");
  move_path(stage.path() / "package", package);
}

struct Payload {
  ExportedBuild build;
  std::string content;
};

Payload compiled_library(Context& context, const spec::Problem& problem, const ExportTarget& target,
                         const TorchExportRequest& request, const std::string& name,
                         const std::function<std::string()>& probe) {
  const std::string arch = export_arch(request.arch, target, problem.spec.build.arch, probe);
  build::Compiler compiler(context);
  const build::BuildOutcome outcome = compiler.compile(
      {.source = problem.spec.kernel, .arch = arch, .flags = problem.spec.build.flags, .defines = target.defines});
  if (!outcome.ok()) {
    throw Error(ExitCode::kernel_failed,
                fmt::format("{} does not compile: {}", problem.spec.kernel.filename().string(),
                            outcome.failure->first_error));
  }
  ExportedBuild build{.kind = "cuda", .file = "lib" + name + ".so", .arch = arch, .nvcc_version = compiler.nvcc_version(),
                      .nvcc_command = outcome.artifact->command};
  return {std::move(build), read_file(outcome.artifact->library, kMaxLibraryBytes)};
}

}  // namespace

std::string export_arch(const std::optional<std::string>& option, const ExportTarget& target,
                        const std::string& spec_arch, const std::function<std::string()>& probe) {
  if (option) return *option;
  if (!target.recorded_arch.empty()) return target.recorded_arch;
  if (!spec_arch.empty() && spec_arch != "native") return spec_arch;
  try {
    return probe();
  } catch (const Error& e) {
    if (e.code() != ExitCode::environment) throw;
    throw environment_error("{} (name the GPU's arch with --arch, e.g. --arch sm_90a)", e.what());
  }
}

std::vector<std::pair<std::string, std::string>> package_files(const json& manifest, const std::string& payload_name,
                                                               const std::string& payload) {
  std::vector<std::pair<std::string, std::string>> files = {
      {"__init__.py", data_file("python/kopt_torch_export.py")},
      {"kopt_torch_rules.py", data_file("python/kopt_torch_rules.py")},
      {"kopt_expression.py", data_file("python/kopt_expression.py")},
      {payload_name, payload}};
  // A Triton kernel is imported as kopt's worker imports it: -D as module variables, a chosen
  // @triton.autotune config (python/kopt_triton_host.py's load_kernel).
  if (manifest.value("kind", "") == "triton") {
    files.emplace_back("kopt_triton_host.py", data_file("python/kopt_triton_host.py"));
  }
  files.emplace_back("manifest.json", manifest.dump(2) + "\n");
  return files;
}

TorchExport export_torch(Context& context, const TorchExportRequest& request, const std::function<std::string()>& probe) {
  const ExportTarget target = export_target(request.target, request.spec, request.defines);
  spec::Problem problem = spec::load_problem(target.kernel, target.spec, run_dims(target.dims));
  for (const std::string& flag : target.flags) problem.spec.build.flags.push_back(flag);
  const std::string name = request.name.empty() ? op_name_of(problem.spec.name) : request.name;
  check_op_name(name);
  const fs::path package = request.out_dir / name;
  check_replaceable(package);
  const std::string source = read_file(problem.spec.kernel);
  Payload payload = spec::is_python_kernel(problem.spec.kernel)
                        ? Payload{ExportedBuild{.kind = "triton", .file = "kernel.py"}, source}
                        : compiled_library(context, problem, target, request, name, probe);
  payload.build.flags = problem.spec.build.flags;
  payload.build.defines = target.defines;
  payload.build.source_digest = content_hash(source);
  payload.build.run = target.run;
  payload.build.variant = target.variant;
  json manifest = torch_manifest(problem, name, payload.build);
  publish(package, package_files(manifest, payload.build.file, payload.content));
  return {package, name, payload.build.arch, std::move(manifest)};
}

}  // namespace kopt::exporting
