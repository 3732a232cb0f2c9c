// kopt export KERNEL|RUN --torch DIR: the kernel (or the run's champion, with its -D values and
// flags) as a Python package registering the PyTorch op kopt::<name> (docs/export.md). The work
// is exporting::export_torch.
#include <fmt/format.h>

#include <iostream>

#include "command.hpp"
#include "common_options.hpp"
#include "kopt/core/error.hpp"
#include "kopt/export/torch_export.hpp"
#include "kopt/sass/kernel_sass.hpp"
#include "kopt/spec/tool_arguments.hpp"

namespace kopt::cli {
namespace {

struct ExportConfig {
  CommonOptions common;
  std::string target = ".";
  std::string torch_dir;
  std::string name;
  std::string spec;
  std::string arch;
  std::vector<std::string> defines;
};

int run_export_command(const ExportConfig& config) {
  if (config.torch_dir.empty()) throw input_error("kopt export needs --torch DIR (the folder the package is written in)");
  exporting::TorchExportRequest request{.target = config.target, .out_dir = config.torch_dir, .name = config.name,
                                        .defines = parse_defines(config.defines)};
  if (!config.spec.empty()) request.spec = config.spec;
  if (!config.arch.empty()) {
    spec::check_arch(config.arch, "--arch");
    request.arch = config.arch;
  }
  Context context = context_of(config.common);
  const exporting::TorchExport done = exporting::export_torch(
      context, request, [&] { return sass::probe_arch(context, worker_settings_of(config.common)); });
  if (config.common.json) {
    std::cout << nlohmann::json{{"package", done.package.string()}, {"op", "kopt::" + done.name},
                                {"manifest", done.manifest}}.dump(2) << "\n";
    return 0;
  }
  std::cout << fmt::format("exported kopt::{}{} to {}\n", done.name, done.arch.empty() ? "" : " (" + done.arch + ")",
                           done.package.string())
            << fmt::format("  import sys; sys.path.insert(0, \"{}\"); import {}\n", config.torch_dir, done.name);
  return 0;
}

}  // namespace

Command export_command() {
  return {"export", "Export a kernel or a run's champion as a PyTorch op (a package to import)", [](CLI::App& app) {
            auto config = std::make_shared<ExportConfig>();
            app.add_option("KERNEL", config->target,
                           "A .cu or kernel.py, a folder with kopt.toml, a kopt.toml, or a run folder (its champion) "
                           "(default: .)");
            app.add_option("--torch", config->torch_dir, "Write the PyTorch package in this folder, as DIR/NAME")
                ->check(output_folder());
            app.add_option("--name", config->name, "The op's and package's name (default: the spec's name)");
            app.add_option("--spec", config->spec, "Use this kopt.toml for KERNEL");
            app.add_option("--arch", config->arch,
                           "Target, e.g. sm_90a (default: the run's, else [build] arch, else the GPU's)");
            app.add_option("-D,--define", config->defines, "Compile with -DNAME=VALUE, over a champion's (repeatable)");
            add_common_options(app, config->common);
            return [config] { return run_export_command(*config); };
          }};
}

}  // namespace kopt::cli
