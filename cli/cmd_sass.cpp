// kopt sass KERNEL [--vs OTHER]: the machine code of the kernel's own functions: instruction
// mix, load/store widths, shared-memory and tensor instructions, ptxas resources; with --vs,
// the opcode differences between two kernels.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <iostream>

#include "command.hpp"
#include "common_options.hpp"
#include "kopt/build/compiler.hpp"
#include "kopt/catalog/method_evidence.hpp"
#include "kopt/core/error.hpp"
#include "kopt/core/files.hpp"
#include "kopt/report/sass_table.hpp"
#include "kopt/run/device_probe.hpp"
#include "kopt/spec/kernel_signature.hpp"
#include "kopt/sass/disassembler.hpp"
#include "kopt/verify/check.hpp"
#include "problem_options.hpp"

namespace kopt::cli {
namespace {

struct SassConfig {
  CommonOptions common;
  ProblemOptions problem;
  std::string target = ".";
  std::string vs;
  std::string out;
  std::vector<std::string> methods;  // --method: check these signatures too
};

// One kernel, compiled and disassembled.
struct Disassembled {
  std::filesystem::path kernel;
  std::string arch;
  build::BuildArtifact build;
  sass::SassDump dump;
  sass::SassProfile profile;
};

std::string target_arch(const spec::Problem& problem, const SassConfig& config, ProcessRunner& runner) {
  const std::string known = verify::resolve_arch(problem.spec.build.arch,
                                                 config.problem.arch.empty() ? std::nullopt
                                                                             : std::optional(config.problem.arch),
                                                 "");
  if (!known.empty()) return known;
  TempDir work("sass", cache_dir_of(config.common) / "tmp");
  return run::probe_device(runner, worker_settings_of(config.common), work.path()).device.arch();
}

std::optional<Disassembled> disassemble_kernel(const std::string& target, const SassConfig& config,
                                               ProcessRunner& runner) {
  spec::Problem problem = load_problem_with(target, config.problem);
  build::Compiler compiler(runner, build::find_nvcc(), cache_dir_of(config.common));
  const std::string arch = target_arch(problem, config, runner);
  build::BuildOutcome build = compiler.compile({.source = problem.spec.kernel,
                                                .arch = arch,
                                                .flags = problem.spec.build.flags,
                                                .defines = check_options_of(config.problem).defines});
  if (!build.ok()) {
    std::cerr << fmt::format("FAIL: {} does not compile: {}\n", problem.spec.kernel.filename().string(),
                             build.failure->first_error);
    return std::nullopt;
  }
  sass::SassDump dump = sass::disassemble(runner, sass::find_cuobjdump(), build.artifact->library);
  sass::SassProfile profile = sass::kernel_profile(dump);
  return Disassembled{problem.spec.kernel, arch, *build.artifact, std::move(dump), std::move(profile)};
}

nlohmann::json document_of(const std::string& target, const Disassembled& d) {
  return {{"kernel", target},
          {"library", d.build.library.string()},
          {"nvcc_command", d.build.command},
          {"resources", d.build.resources},
          {"functions", d.profile.functions},
          {"unparsed_lines", d.dump.unparsed}};
}

// The methods the kernel declares (kopt:method) or --method names, checked in its machine code.
std::vector<catalog::MethodEvidence> method_evidence(const Disassembled& d, const SassConfig& config) {
  return catalog::check_kernel_methods(d.kernel, config.methods, check_options_of(config.problem).defines,
                                      d.profile.functions, catalog::arch_number(d.arch));
}

int run_sass_command(const SassConfig& config) {
  // A mistyped --method is bad input: say so before compiling anything.
  if (!config.methods.empty()) {
    const catalog::MethodCatalog methods = catalog::load_method_catalog();
    for (const std::string& id : config.methods) {
      if (methods.find(id) == nullptr) throw input_error("unknown method \"{}\" (data/methods.toml)", id);
    }
  }
  SystemProcessRunner runner;
  std::optional<Disassembled> a = disassemble_kernel(config.target, config, runner);
  if (!a) return static_cast<int>(ExitCode::kernel_failed);
  nlohmann::json document = {{"schema_version", 1}, {"kind", "sass"}, {"kernel", document_of(config.target, *a)}};
  std::string text = report::format_sass_profile(a->profile, a->build.resources);
  const std::vector<catalog::MethodEvidence> methods = method_evidence(*a, config);
  document["methods"] = methods;
  text += report::format_method_evidence(methods);

  if (!config.vs.empty()) {
    std::optional<Disassembled> b = disassemble_kernel(config.vs, config, runner);
    if (!b) return static_cast<int>(ExitCode::kernel_failed);
    document["vs"] = document_of(config.vs, *b);
    nlohmann::json diffs = nlohmann::json::array();
    text += fmt::format("\n--vs {}\n", config.vs);
    // With one kernel function on each side they are compared whatever their names; else by name.
    for (const sass::SassFunctionProfile& fa : a->profile.functions) {
      const sass::SassFunctionProfile* fb = a->profile.functions.size() == 1 && b->profile.functions.size() == 1
                                                ? &b->profile.functions.front()
                                                : b->profile.find(fa.name);
      if (fb == nullptr) continue;
      diffs.push_back({{"a", fa.name}, {"b", fb->name}, {"opcodes", sass::diff(fa.opcodes, fb->opcodes)}});
      text += report::format_sass_diff(fa, *fb);
    }
    document["diff"] = diffs;
  }
  std::filesystem::path out = config.out.empty() ? a->kernel.parent_path() / "sass.json"
                                                 : std::filesystem::path(config.out);
  write_file_atomic(out, document.dump(2) + "\n");
  if (config.common.json) std::cout << document.dump(2) << "\n";
  else std::cout << text << fmt::format("  wrote {}\n", out.string());
  return static_cast<int>(ExitCode::ok);
}

}  // namespace

Command sass_command() {
  return {"sass", "Show the kernel's machine code: instruction mix, access widths, resources", [](CLI::App& app) {
            auto config = std::make_shared<SassConfig>();
            app.add_option("KERNEL", config->target, "A .cu file, a folder with kopt.toml, or a kopt.toml (default: .)");
            app.add_option("--vs", config->vs, "Another kernel to compare opcode counts with");
            app.add_option("--out", config->out, "Where to write sass.json (default: beside the kernel)")
                ->check(output_file());
            app.add_option("--method", config->methods,
                           "A catalog method whose SASS signature to look for, besides those the source declares "
                           "(repeatable)");
            add_problem_options(app, config->problem);
            add_common_options(app, config->common);
            return [config] { return run_sass_command(*config); };
          }};
}

}  // namespace kopt::cli
