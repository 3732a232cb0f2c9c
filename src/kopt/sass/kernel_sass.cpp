#include "kopt/sass/kernel_sass.hpp"

#include <algorithm>
#include <iterator>

#include "kopt/core/error.hpp"
#include "kopt/core/files.hpp"
#include "kopt/run/device_probe.hpp"
#include "kopt/sass/disassembler.hpp"
#include "kopt/verify/check.hpp"
#include "kopt/spec/python_kernel.hpp"

namespace kopt::sass {

std::string target_arch(const std::string& spec_arch, const std::optional<std::string>& option,
                        const std::function<std::string()>& probe) {
  const std::string known = verify::resolve_arch(spec_arch, option, "");
  return known.empty() ? probe() : known;
}

std::string probe_arch(Context& context, const run::WorkerSettings& worker) {
  TempDir work("probe", context.cache_dir / "tmp");
  try {
    return run::probe_device(context.runner, worker, work.path()).device.arch();
  } catch (const Error& e) {
    if (e.code() != ExitCode::environment) throw;
    // The GPU is asked only for its arch: say how to do without it.
    throw environment_error("no GPU to take the target architecture from ({}): the machine code needs no GPU, "
                            "only the target: give --arch (e.g. sm_90a) or [build] arch", e.what());
  }
}

KernelSassOutcome kernel_sass(Context& context, const KernelSassRequest& request) {
  spec::refuse_python_kernel(request.kernel, "SASS");  // problem_sass reads a Triton kernel's cubins instead
  build::Compiler compiler(context);
  build::BuildOutcome build = compiler.compile(
      {.source = request.kernel, .arch = request.arch, .flags = request.flags, .defines = request.defines});
  if (!build.ok()) return {.failure = "does not compile: " + build.failure->first_error};
  SassDump dump = disassemble(context.runner, context.tools.path(Tool::cuobjdump), build.artifact->library);
  SassProfile profile = kernel_profile(dump);
  return {.sass = KernelSass{request.kernel, request.arch, *build.artifact, std::move(dump), std::move(profile)}};
}

namespace {

SassDump disassembled_cubins(Context& context, const std::vector<std::filesystem::path>& cubins) {
  SassDump all;
  for (const std::filesystem::path& cubin : cubins) {
    SassDump one = disassemble(context.runner, context.tools.path(Tool::cuobjdump), cubin);
    std::ranges::move(one.functions, std::back_inserter(all.functions));
    std::ranges::move(one.unparsed, std::back_inserter(all.unparsed));
  }
  return all;
}

KernelSassOutcome triton_kernel_sass(Context& context, const spec::Problem& problem,
                                     const std::vector<std::pair<std::string, std::string>>& defines,
                                     const run::WorkerSettings& worker) {
  spec::Problem first_case = problem;
  first_case.cases.resize(1);  // one specialisation per kernel: the spec's first (default) case's
  TempDir cubins("triton-sass", context.cache_dir / "tmp");
  verify::CheckContext check_context{context.runner, context.cache_dir, worker};
  const verify::CheckReport report = verify::run_check(
      first_case, {.seed_count = 1, .defines = defines, .triton_cubins_out = cubins.path()}, check_context);
  if (!report.passed()) return {.failure = "failed its check: " + report.cause()};
  if (report.triton_cubins.empty()) return {.failure = "failed its check: Triton compiled no kernel while solve ran"};
  SassDump dump = disassembled_cubins(context, report.triton_cubins);
  SassProfile profile = kernel_profile(dump);
  build::BuildArtifact bridge = *report.build;
  bridge.resources = {};  // the bridge's are the shim's, none of kernel.py's
  return {.sass = KernelSass{problem.spec.kernel, report.arch, std::move(bridge), std::move(dump), std::move(profile)}};
}

}  // namespace

KernelSassOutcome problem_sass(Context& context, const spec::Problem& problem,
                               const std::vector<std::pair<std::string, std::string>>& defines,
                               const std::optional<std::string>& arch, const run::WorkerSettings& worker) {
  if (spec::is_python_kernel(problem.spec.kernel)) return triton_kernel_sass(context, problem, defines, worker);
  const std::string target = target_arch(problem.spec.build.arch, arch, [&] { return probe_arch(context, worker); });
  return kernel_sass(context, {problem.spec.kernel, problem.spec.build.flags, defines, target});
}

nlohmann::json kernel_sass_json(const std::string& target, const KernelSass& sass) {
  return {{"kernel", target},
          {"library", sass.build.library.string()},
          {"nvcc_command", sass.build.command},
          {"resources", sass.build.resources},
          {"functions", sass.profile.functions},
          {"unparsed_lines", sass.dump.unparsed}};
}

std::vector<std::pair<const SassFunctionProfile*, const SassFunctionProfile*>> paired_functions(
    const SassProfile& a, const SassProfile& b) {
  std::vector<std::pair<const SassFunctionProfile*, const SassFunctionProfile*>> pairs;
  const bool one_each = a.functions.size() == 1 && b.functions.size() == 1;
  for (const SassFunctionProfile& fa : a.functions) {
    const SassFunctionProfile* fb = one_each ? &b.functions.front() : b.find(fa.name);
    if (fb != nullptr) pairs.emplace_back(&fa, fb);
  }
  return pairs;
}

}  // namespace kopt::sass
